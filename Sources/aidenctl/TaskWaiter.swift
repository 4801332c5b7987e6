import AgentCLI
import Platform
import WireFormat

/// `aidenctl task wait`: asks the board's wait (docs/protocol.md §6.6), which answers as soon as the person's stop
/// or answer, or the end, is on the task (one already recorded at once), and asks again after each of its timeouts
/// (60 s at most) until `--timeout` passes. A board that cannot be reached is asked again every half second, as
/// `events --follow` does; an answer that is an error ends it.
struct TaskWaiter {
    let invocation: Invocation
    let wait: Command.Wait
    let transport: any AgentTransport

    /// How long to wait before asking a board that could not be reached again.
    static let retryMilliseconds: Int = 500

    func execute() -> Never {
        let clock = ContinuousClock()
        let deadline = wait.timeoutSeconds.map { clock.now + .seconds(Int64(clamping: $0)) }
        let check = TaskWait(requestID: wait.requestID, target: wait.target)
        var away: String?
        while true {
            // The hold: what is left of --timeout, rounded up (the board counts whole seconds), at most 60 s.
            var hold = TaskWait.longestHoldSeconds
            if let deadline {
                let left = deadline - clock.now
                let seconds = Int(left.components.seconds) + (left.components.attoseconds > 0 ? 1 : 0)
                hold = min(max(seconds, 0), hold)
            }
            let request = check.request(holdingFor: hold)
            let result = AgentCLI.exchange(request, invocation: invocation, transport: transport).flatMap {
                AgentCLI.waited($0, to: request, invocation: invocation, wait: check)
            }
            switch result {
            case let .success(decision):
                if away != nil {
                    OutputDescriptor.standardError.write("aidenctl: aiden-board answers again\n")
                    away = nil
                }
                if let decision { finish(decision) }
            case let .failure(failure):
                if !noteAway(failure, &away) { fail(failure) }
                ThreadSleep.sleep(for: .milliseconds(Self.retryMilliseconds))
            }
            if let deadline, clock.now >= deadline {
                fail(.waitTimedOut(requestID: wait.requestID, target: wait.target, seconds: wait.timeoutSeconds ?? 0))
            }
        }
    }

    /// A board that cannot be reached (or is stopping): said once, and asked again (true). Any other failure: false.
    private func noteAway(_ failure: CLIFailure, _ away: inout String?) -> Bool {
        guard failure.boardIsAway else { return false }
        if away != failure.line {
            OutputDescriptor.standardError.write(failure.line + "; asking again\n")
            away = failure.line
        }
        return true
    }

    private func finish(_ decision: TaskWait.Decision) -> Never {
        switch decision {
        case let .came(line, event):
            OutputDescriptor.standardOutput.write(TaskWait.output(line, event: event, json: invocation.json))
            CurrentProcess.exit(ExitCode.ok.rawValue)
        case let .endedFirst(status):
            fail(.endedBeforeWait(requestID: wait.requestID, status: status, target: wait.target))
        }
    }

    private func fail(_ failure: CLIFailure) -> Never {
        let outcome = CLIOutcome(failure: failure, json: invocation.json)
        OutputDescriptor.standardOutput.write(outcome.standardOutput)
        OutputDescriptor.standardError.write(outcome.standardError)
        CurrentProcess.exit(outcome.exitCode.rawValue)
    }
}
