import AgentCLI
import Platform

/// `aidenctl events --follow`: holds the board's wait for the events after its cursor (docs/protocol.md §6.6:
/// answered as soon as one comes, or after 30 s with none) and prints them as they come, asking again at once,
/// until it is interrupted. A board that cannot be reached (restarting, say) is asked again every second, with
/// one line when it goes away and one when it is back; an answer that is an error ends it.
struct EventsFollower {
    let invocation: Invocation
    let events: Command.Events
    let transport: any AgentTransport

    /// How long the board holds each read when nothing happens.
    static let holdSeconds = 30
    /// How long to wait before asking a board that could not be reached again.
    static let retrySeconds = 1

    func execute() -> Never {
        var cursor = EventsCursor(since: events.since)
        var away: String?
        while true {
            let request = cursor.request(waitingFor: Self.holdSeconds)
            let result = AgentCLI.exchange(request, invocation: invocation, transport: transport).flatMap {
                AgentCLI.page($0, to: request, invocation: invocation, cursor: &cursor)
            }
            switch result {
            case let .success(page):
                if away != nil {
                    OutputDescriptor.standardError.write("aidenctl: aiden-board answers again\n")
                    away = nil
                }
                OutputDescriptor.standardError.write(page.standardError)
                if !OutputDescriptor.standardOutput.write(page.standardOutput) {
                    CurrentProcess.exit(ExitCode.ok.rawValue)  // the reader went away: nothing left to follow for
                }
                continue
            case let .failure(failure) where failure.boardIsAway:
                let line = failure.line
                if away != line {
                    OutputDescriptor.standardError.write(line + "; asking again every second\n")
                    away = line
                }
            case let .failure(failure):
                OutputDescriptor.standardError.write(failure.line + "\n")
                CurrentProcess.exit(failure.exitCode.rawValue)
            }
            ThreadSleep.sleep(for: .seconds(Self.retrySeconds))
        }
    }
}
