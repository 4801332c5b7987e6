import BoardAPI
import NetworkAddress
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What the C callbacks of one daemon need, passed to them as the context pointer.
final class ServerContext: Sendable {
    let handler: HTTPServer.Handler
    let limits: HTTPServerLimits
    let isUnixSocket: Bool
    let admission: HTTPServerAdmission
    /// Every open connection and how long it has waited for a request (the request deadline).
    let connections = Mutex(ConnectionTable())
    private let origin = ContinuousClock.now

    init(
        handler: @escaping HTTPServer.Handler, limits: HTTPServerLimits, isUnixSocket: Bool,
        admission: HTTPServerAdmission
    ) {
        self.handler = handler
        self.limits = limits
        self.isUnixSocket = isUnixSocket
        self.admission = admission
    }

    /// Monotonic time since the server started (the table's clock).
    func now() -> Duration { ContinuousClock.now - origin }

    /// Shuts down the connections that have waited longer than the request deadline. Under the table's lock, so a
    /// descriptor is shut down only while its connection is still open: libmicrohttpd reports a connection closed
    /// (and the table forgets it) before it closes the descriptor, which a new connection may then reuse.
    func cutOverdueConnections() {
        let now = now()
        connections.withLock { table in
            for descriptor in table.overdue(
                at: now, deadline: limits.requestDeadline, headerDeadline: limits.headerDeadline)
            {
                shutdown(descriptor, Int32(SHUT_RDWR))
            }
        }
    }

    /// A TCP connection opened: it enters the table in its class (served, or refused and to be answered 403) and
    /// gets its room there, evicting the connection that waited longest when its class is full (or shut down
    /// itself when none is waiting). Shut down under the lock, like `cutOverdueConnections`.
    func admit(_ id: UInt, descriptor: Int32, peer: IPAddress, refused: Bool) {
        let now = now()
        connections.withLock { table in
            table.open(id, descriptor: descriptor, peer: .address(peer.unmapped), refused: refused, at: now)
            for cut in table.makeRoom(for: id, within: limits.budget) { shutdown(cut, Int32(SHUT_RDWR)) }
        }
    }

    /// Shuts a connection down now (refused when it opened): libmicrohttpd then reads its end and closes it.
    func refuse(_ id: UInt) {
        connections.withLock { table in
            if let descriptor = table.refuse(id) { shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }
}

/// The state of one request between MHD's calls to the access handler (headers, body chunks, end).
final class RequestState {
    var body: [UInt8] = []
    var bodyTooLarge = false
    var responded = false
}
