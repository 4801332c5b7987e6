import NetworkAddress
import Platform
import Synchronization

/// The development Wake transport: a UDP socket on loopback, one 12-byte envelope per datagram
/// (the board's `[wake] transport = "loopback"` sends them). A dedicated thread waits, with no timeout, until
/// the socket or its `WakePipe` is readable; `stop` wakes it through the pipe, so an idle receiver never wakes.
package final class LoopbackWakeSource: WakeSource {
    package let endpoint: SocketEndpoint
    private let running = Mutex<Running?>(nil)
    private let counter = Counter()
    private let boundEndpoint = Mutex<SocketEndpoint?>(nil)

    private struct Running: Sendable {
        let thread: JoinableThread
        let stop: WakePipe
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
        let stop: WakePipe
        do {
            stop = try WakePipe.make()
        } catch {
            throw WakeSourceError("cannot start the Wake receiver: \(error)")
        }
        let counter = self.counter
        deliver(.state(.connected))
        guard
            let thread = JoinableThread.start({
                while true {
                    let ready = DescriptorPoll.waitForReadable(
                        [socket.descriptor, stop.descriptor], timeoutMilliseconds: -1)
                    if ready[1] { break }
                    guard ready[0], let datagram = socket.receive(maxBytes: 64, timeoutMilliseconds: 0) else {
                        continue
                    }
                    counter.received.add(1, ordering: .relaxed)
                    deliver(.value(datagram.bytes, fullLength: datagram.fullLength))
                }
            })
        else {
            stop.close()
            throw WakeSourceError("cannot start the Wake receiver thread")
        }
        running.withLock { $0 = Running(thread: thread, stop: stop) }
    }

    package func stop() {
        guard
            let current = running.withLock({ slot -> Running? in
                defer { slot = nil }
                return slot
            })
        else { return }
        current.stop.wake()
        current.thread.join()
        current.stop.close()
    }
}
