import AgentCLI

#if canImport(Glibc)
import Glibc
#endif

/// `aidenctl events --follow`: asks the board for the events after its cursor every second and prints
/// them as they come, until it is interrupted. A board that cannot be reached (restarting, say) is asked
/// again, with one line when it goes away and one when it is back; an answer that is an error ends it.
struct EventsFollower {
    let invocation: Invocation
    let events: Command.Events
    let transport: any AgentTransport

    /// How long between two reads: the board coalesces Wakes to 750 ms, so a second loses no liveliness.
    static let pollSeconds = 1

    func execute() -> Never {
        var cursor = EventsCursor(since: events.since)
        var away: String?
        while true {
            let request = cursor.request
            let result = AgentCLI.exchange(request, invocation: invocation, transport: transport).flatMap {
                AgentCLI.page($0, to: request, invocation: invocation, cursor: &cursor)
            }
            switch result {
            case let .success(page):
                if away != nil {
                    StandardStream.write("aidenctl: aiden-board answers again\n", to: 2)
                    away = nil
                }
                StandardStream.write(page.standardError, to: 2)
                if !StandardStream.write(bytes: Array(page.standardOutput.utf8)[...], to: 1) {
                    exit(ExitCode.ok.rawValue)  // the reader went away: nothing left to follow for
                }
            case let .failure(.transport(failure, socketPath)):
                let line = CLIFailure.transport(failure, socketPath: socketPath).line
                if away != line {
                    StandardStream.write(line + "; asking again every second\n", to: 2)
                    away = line
                }
            case let .failure(failure):
                StandardStream.write(failure.line + "\n", to: 2)
                exit(failure.exitCode.rawValue)
            }
            var pause = timespec(tv_sec: Self.pollSeconds, tv_nsec: 0)
            var left = timespec()
            while nanosleep(&pause, &left) != 0 && errno == EINTR { pause = left }
        }
    }
}
