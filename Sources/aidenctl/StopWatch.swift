import AgentCLI
import Platform
import Synchronization

/// `task run`'s ear for the person: a thread of its own holds the board's wait for a stop of the task
/// (docs/protocol.md §6.6), asked again after each of its timeouts, and wakes the main loop through a pipe the
/// moment the board answers that a stop is on the task. The main loop keeps passing the command's output on
/// meanwhile; the stop is heard as soon as the board records it, whatever the ring has dropped.
final class StopWatch: Sendable {
    /// Read by the main loop's poll: readable once the stop came.
    let wakes: WakePipe
    /// The line that says who asked (`stop requested from phone phone-1`), once the stop came.
    private let heard = Mutex<String?>(nil)

    private init(wakes: WakePipe) {
        self.wakes = wakes
    }

    /// Starts watching task `requestID` on `socketPath`; `report` says (once per kind) why the board could not be
    /// asked. Fails when the pipe or the thread cannot be made. Start it after `SignalRelay.start`, so the thread has
    /// the stop signals blocked like every other.
    static func start(
        requestID: String, socketPath: String, report: @escaping @Sendable (String) -> Void
    ) throws(SystemCallError) -> StopWatch {
        let watch = StopWatch(wakes: try WakePipe.make())
        do {
            _ = try JoinableThread.started { watch.watch(requestID: requestID, socketPath: socketPath, report: report) }
        } catch {
            watch.wakes.close()
            throw error
        }
        return watch
    }

    /// The line that says who asked for the stop, once it came.
    var line: String? { heard.withLock { $0 } }

    private func watch(requestID: String, socketPath: String, report: @Sendable (String) -> Void) {
        let transport = HTTPAgentTransport()
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
                wakes.wake()
                return
            case .success(.endedFirst?):
                return  // the run ended it: nothing left to stop
            case let .failure(failure):
                if warned.insert(failure.message).inserted {
                    report("could not ask the board for a stop of task \(requestID): \(failure.message)")
                }
                ThreadSleep.sleep(for: .milliseconds(500))
            }
        }
    }
}
