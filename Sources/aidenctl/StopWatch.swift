import AgentCLI
import Platform
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `task run`'s ear for the person: a thread of its own holds the board's wait for a stop of the task
/// (docs/protocol.md §6.6), asked again after each of its timeouts, and wakes the main loop through a pipe the
/// moment the board answers that a stop is on the task. The main loop keeps passing the command's output on
/// meanwhile; the stop is heard as soon as the board records it, whatever the ring has dropped.
final class StopWatch: Sendable {
    /// Read by the main loop's poll: readable once the stop came.
    let wakeDescriptor: Int32
    private let wakeWriter: Int32
    /// The line that says who asked (`stop requested from phone phone-1`), once the stop came.
    private let heard = Mutex<String?>(nil)

    private init(wakeDescriptor: Int32, wakeWriter: Int32) {
        self.wakeDescriptor = wakeDescriptor
        self.wakeWriter = wakeWriter
    }

    /// Starts watching task `requestID` on `socketPath`; `report` says (once per kind) why the board could not be
    /// asked. Nil if the pipe or the thread cannot be made. Start it after `SignalRelay.start`, so the thread has
    /// the stop signals blocked like every other.
    static func start(
        requestID: String, socketPath: String, report: @escaping @Sendable (String) -> Void
    ) -> StopWatch? {
        guard let pipe = ChildPipe.make() else { return nil }
        let watch = StopWatch(wakeDescriptor: pipe.read, wakeWriter: pipe.write)
        guard JoinableThread.start({ watch.watch(requestID: requestID, socketPath: socketPath, report: report) }) != nil
        else {
            pipe.close()
            return nil
        }
        return watch
    }

    /// The line that says who asked for the stop, once it came.
    var line: String? { heard.withLock { $0 } }

    /// Empties the pipe (after poll said it is readable).
    func drain() {
        var bytes = [UInt8](repeating: 0, count: 8)
        while read(wakeDescriptor, &bytes, bytes.count) > 0 {}
    }

    private func watch(requestID: String, socketPath: String, report: @Sendable (String) -> Void) {
        let transport = CurlAgentTransport()
        let invocation = Invocation(
            socketPath: socketPath, command: .taskWait(Command.Wait(requestID: requestID, target: .stop)))
        let stop = TaskWait(requestID: requestID, target: .stop)
        var warned: Set<String> = []
        while true {
            let request = stop.request(holdingFor: TaskWait.longestHoldSeconds)
            let result = AgentCLI.exchange(request, invocation: invocation, transport: transport).flatMap {
                AgentCLI.waited($0, to: request, invocation: invocation, wait: stop)
            }
            switch result {
            case .success(nil):
                continue  // the wait's timeout: ask again
            case let .success(.came(line, _)?):
                heard.withLock { $0 = line }
                var byte: UInt8 = 1
                _ = write(wakeWriter, &byte, 1)
                return
            case .success(.endedFirst?):
                return  // the run ended it: nothing left to stop
            case let .failure(failure):
                if warned.insert(failure.message).inserted {
                    report("could not ask the board for a stop of task \(requestID): \(failure.message)")
                }
                var pause = timespec(tv_sec: 0, tv_nsec: 500_000_000)
                var left = timespec()
                while nanosleep(&pause, &left) != 0 && errno == EINTR { pause = left }
            }
        }
    }
}
