import NetworkAddress
import Platform
import Synchronization

/// The development Wake transport: a UDP socket on loopback, one 12-byte envelope per datagram
/// (the board's `[wake] transport = "loopback"` sends them). A dedicated thread blocks in
/// `receive`; `stop` wakes it with an empty datagram to itself, and the receive timeout (10 s) only
/// bounds the wait should that datagram be lost; it costs an idle receiver one wake-up each 10 s.
package final class LoopbackWakeSource: WakeSource {
    package let endpoint: SocketEndpoint
    private let running = Mutex<Running?>(nil)
    private let counter = Counter()
    private let boundEndpoint = Mutex<SocketEndpoint?>(nil)

    private struct Running: Sendable {
        let thread: JoinableThread
        let keepRunning: Flag
    }

    private final class Flag: Sendable {
        let value = Atomic<Bool>(true)
    }

    private final class Counter: Sendable {
        let received = Atomic<UInt64>(0)
    }

    package init(endpoint: SocketEndpoint) {
        self.endpoint = endpoint
    }

    /// The endpoint actually bound (with the kernel's port when `endpoint` had port 0).
    package var localEndpoint: SocketEndpoint? { boundEndpoint.withLock { $0 } }

    package var facts: WakeSourceFacts {
        WakeSourceFacts(
            transport: "loopback", endpoint: (localEndpoint ?? endpoint).description,
            received: counter.received.load(ordering: .relaxed))
    }

    package func start(deliver: @escaping @Sendable (WakeSourceEvent) -> Void) throws(WakeSourceError) {
        let socket: UDPDatagramSocket
        do {
            socket = try UDPDatagramSocket(receivingOn: endpoint)
        } catch {
            throw WakeSourceError("cannot receive Wakes on \(endpoint): \(error)")
        }
        boundEndpoint.withLock { $0 = socket.localEndpoint }
        let flag = Flag()
        let counter = self.counter
        deliver(.state(.connected))
        guard
            let thread = JoinableThread.start({
                while flag.value.load(ordering: .acquiring) {
                    guard let datagram = socket.receive(maxBytes: 64, timeoutMilliseconds: 10_000) else { continue }
                    guard flag.value.load(ordering: .acquiring) else { break }
                    counter.received.add(1, ordering: .relaxed)
                    deliver(.value(datagram.bytes, fullLength: datagram.fullLength))
                }
            })
        else {
            throw WakeSourceError("cannot start the Wake receiver thread")
        }
        running.withLock { $0 = Running(thread: thread, keepRunning: flag) }
    }

    package func stop() {
        guard
            let current = running.withLock({ slot -> Running? in
                defer { slot = nil }
                return slot
            })
        else { return }
        current.keepRunning.value.store(false, ordering: .releasing)
        if let bound = localEndpoint {
            // An unspecified bind (0.0.0.0, ::) is reached on loopback.
            let loopback = bound.address.isIPv6 ? IPAddress("::1") : IPAddress(v4: 127, 0, 0, 1)
            let address = bound.address.isUnspecified ? loopback ?? bound.address : bound.address
            let target = SocketEndpoint(address: address, port: bound.port)
            _ = (try? UDPDatagramSocket(sendingTo: target))?.send([], to: target)
        }
        current.thread.join()
    }
}
