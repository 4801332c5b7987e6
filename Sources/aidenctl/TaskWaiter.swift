import AgentCLI
import WireFormat

#if canImport(Glibc)
import Glibc
#endif

/// `aidenctl task wait`: notes where the board's ring is, reads the task (an answer already recorded counts
/// at once), then reads the ring after that point twice a second until `TaskWait` says it came, the task
/// ended first, or the timeout passed. A board that cannot be reached is asked again, as `events --follow`
/// does; an answer that is an error ends it.
struct TaskWaiter {
    let invocation: Invocation
    let wait: Command.Wait
    let transport: any AgentTransport

    static let pollMilliseconds: Int = 500

    func execute() -> Never {
        let clock = ContinuousClock()
        let deadline = wait.timeoutSeconds.map { clock.now + .seconds(Int64(clamping: $0)) }
        let check = TaskWait(requestID: wait.requestID, target: wait.target)
        var cursor = EventsCursor()
        var away: String?
        var started = false
        var needsTaskRead = true
        while true {
            switch readRing(&cursor) {
            case let .success(page):
                if away != nil {
                    StandardStream.write("aidenctl: aiden-board answers again\n", to: 2)
                    away = nil
                }
                // The first page only places the cursor: what came before is on the task, read next.
                if started {
                    for event in page.events where check.check(event: event) != nil {
                        let task = check.target == .stop ? try? readTask().get() : nil
                        if let decision = check.check(event: event, task: task) { finish(decision) }
                    }
                }
                started = true
                if page.missedSome { needsTaskRead = true }
                if needsTaskRead {
                    switch readTask() {
                    case let .success(task):
                        needsTaskRead = false
                        if let decision = check.check(task: task) { finish(decision) }
                    case let .failure(failure):
                        if !noteAway(failure, &away) { fail(failure) }
                    }
                }
            case let .failure(failure):
                if !noteAway(failure, &away) { fail(failure) }
            }
            if let deadline, clock.now >= deadline {
                fail(.waitTimedOut(requestID: wait.requestID, target: wait.target, seconds: wait.timeoutSeconds ?? 0))
            }
            var pause = timespec(tv_sec: 0, tv_nsec: Self.pollMilliseconds * 1_000_000)
            var left = timespec()
            while nanosleep(&pause, &left) != 0 && errno == EINTR { pause = left }
        }
    }

    private func readRing(_ cursor: inout EventsCursor) -> Result<EventsCursor.Page, CLIFailure> {
        let request = cursor.request
        return AgentCLI.exchange(request, invocation: invocation, transport: transport).flatMap {
            AgentCLI.page($0, to: request, invocation: invocation, cursor: &cursor)
        }
    }

    private func readTask() -> Result<SnapshotView, CLIFailure> {
        let show = Invocation(socketPath: invocation.socketPath, command: .taskShow(requestID: wait.requestID))
        guard let request = show.command.request(idempotencyKey: "") else { preconditionFailure("a read") }
        return AgentCLI.exchange(request, invocation: show, transport: transport).flatMap {
            AgentCLI.answer($0, to: request, invocation: show)
        }
    }

    /// A board that cannot be reached: said once, and asked again (true). Any other failure: false.
    private func noteAway(_ failure: CLIFailure, _ away: inout String?) -> Bool {
        guard case .transport = failure else { return false }
        if away != failure.line {
            StandardStream.write(failure.line + "; asking again\n", to: 2)
            away = failure.line
        }
        return true
    }

    private func finish(_ decision: TaskWait.Decision) -> Never {
        switch decision {
        case let .came(line, event):
            StandardStream.write(TaskWait.output(line, event: event, json: invocation.json), to: 1)
            exit(ExitCode.ok.rawValue)
        case let .endedFirst(status):
            fail(.endedBeforeWait(requestID: wait.requestID, status: status, target: wait.target))
        }
    }

    private func fail(_ failure: CLIFailure) -> Never {
        let outcome = CLIOutcome(failure: failure, json: invocation.json)
        StandardStream.write(outcome.standardOutput, to: 1)
        StandardStream.write(outcome.standardError, to: 2)
        exit(outcome.exitCode.rawValue)
    }
}
