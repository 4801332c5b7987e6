internal import CMicroHTTPD
import NetworkAddress
import Platform
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The accept loop of a TCP listener, handing the connections to its libmicrohttpd daemon (`MHD_add_connection`; the
/// daemon's inter-thread channel wakes its thread to read them). libmicrohttpd's own loop accepts about a dozen a
/// turn from the kernel's queue, which keeps connections in the order they came: a process on the phone host holding
/// a thousand kept the phone's new connection waiting behind all of them for over a second (docs/security.md). Each
/// turn here takes the whole queue, hands over what `AcceptTriage` keeps and closes the others at once. On its own
/// thread, which blocks in `poll` between turns.
final class AcceptLoop: @unchecked Sendable {  // `daemon` is used on the loop's thread only, joined before it stops
    /// The most connections one turn accepts before it hands over what it keeps (the kernel's queue is 4,096 deep): a
    /// turn holds no more descriptors than it hands over, however long, but hands over nothing until it ends.
    static let turnLimit = 1_024

    private let listener: Int32
    private let daemon: OpaquePointer
    private let context: ServerContext
    /// How many connections libmicrohttpd may hold, open or handed over (`ConnectionTable.count`), and how many of
    /// those only connections with their request in may take (`AcceptTriage`).
    private let intakeLimit: Int
    private let reserved: Int
    /// Written once by `stop`: the loop's `poll` returns and the loop ends.
    private let wake: Int32
    private let thread = Mutex<JoinableThread?>(nil)

    private init(
        listener: Int32, daemon: OpaquePointer, context: ServerContext, intakeLimit: Int, reserved: Int, wake: Int32
    ) {
        self.listener = listener
        self.daemon = daemon
        self.context = context
        self.intakeLimit = intakeLimit
        self.reserved = reserved
        self.wake = wake
    }

    /// Starts the loop on `listener` (made non-blocking: each turn accepts until the queue is empty); nil when the
    /// system gave no thread or descriptor for it.
    static func start(
        listener: Int32, daemon: OpaquePointer, context: ServerContext, intakeLimit: Int, reserved: Int
    ) -> AcceptLoop? {
        let wake = aiden_wake_descriptor()
        guard wake >= 0 else { return nil }
        _ = fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK)
        let loop = AcceptLoop(
            listener: listener, daemon: daemon, context: context, intakeLimit: intakeLimit, reserved: reserved,
            wake: wake)
        guard let thread = JoinableThread.start({ loop.run() }) else {
            close(wake)
            return nil
        }
        loop.thread.withLock { $0 = thread }
        return loop
    }

    /// Ends the loop and waits for it: no connection is handed over after this returns. The listener stays open.
    func stop() {
        var one: UInt64 = 1
        _ = write(wake, &one, MemoryLayout<UInt64>.size)
        thread.withLock { $0 }?.join()
        close(wake)
    }

    private func run() {
        var watched = [
            pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            guard poll(&watched, 2, -1) > 0 else { continue }  // EINTR
            if watched[1].revents != 0 { return }
            // Out of descriptors (or another accept failure): the queue waits; not tried again in a tight loop.
            if !takeQueue() { usleep(10_000) }
        }
    }

    /// Accepts until the queue is empty, in turns of at most `turnLimit`; each turn's connections are triaged as they
    /// come and handed over at its end. False when accept failed otherwise than on an empty queue.
    private func takeQueue() -> Bool {
        while true {
            let room = context.connections.withLock { intakeLimit - $0.count }
            var triage = AcceptTriage(perPeer: context.limits.perPeerConnectionLimit, room: room, reserved: reserved)
            var peers: [Int32: SocketEndpoint] = [:]
            var accepted = 0
            var error: Int32 = 0
            while accepted < Self.turnLimit {
                var storage = sockaddr_storage()
                var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let descriptor = withUnsafeMutablePointer(to: &storage) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { aiden_accept(listener, $0, &length) }
                }
                guard descriptor >= 0 else {
                    error = errno
                    if error == EINTR || error == ECONNABORTED { continue }
                    break
                }
                accepted += 1
                let peer = withUnsafePointer(to: storage) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { SockaddrStorage.endpoint(from: $0) }
                }
                guard let peer else {
                    close(descriptor)
                    continue
                }
                peers[descriptor] = peer
                let arrival = AcceptTriage.Arrival(
                    peer: peer.address.unmapped, requestIn: ConnectionFacts.requestIn(descriptor))
                for dropped in triage.take(descriptor, arrival, requestIn: ConnectionFacts.requestIn) {
                    peers[dropped] = nil
                    close(dropped)
                }
            }
            for (descriptor, _) in triage.held {
                guard let peer = peers[descriptor] else { continue }
                handOver(descriptor, peer: peer)
            }
            guard accepted == Self.turnLimit else { return error == EAGAIN || error == EWOULDBLOCK }
        }
    }

    private func handOver(_ descriptor: Int32, peer: SocketEndpoint) {
        context.connections.withLock { $0.handOver(descriptor) }
        let added = SockaddrStorage(peer).withSockaddr { MHD_add_connection(daemon, descriptor, $0, $1) }
        // It closed the descriptor: not counted any more.
        if added != .YES { context.connections.withLock { $0.withdraw(descriptor) } }
    }
}
