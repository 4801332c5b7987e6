import WireFormat

/// How the command of `task run` ended, as the executable saw it; decides the task's end and aidenctl's
/// exit status, so those rules are tested without running anything.
package enum RunTermination: Sendable, Equatable {
    /// It exited with this status.
    case exited(Int32)
    /// A signal killed it (`name` such as `SIGKILL`).
    case killed(signal: Int32, name: String)
    /// It never ran: the program was not found (`status` 127) or could not be executed (126); `reason`
    /// says why, e.g. "No such file or directory".
    case notStarted(reason: String, status: Int32)
    /// aidenctl was asked to stop (`name`) before it started the command, which then never ran.
    case stoppedBeforeStart(signal: Int32, name: String)

    /// The exit status of `task run`: the command's own, 128 + the signal that killed it, or a shell's 126
    /// and 127 for a command that could not run.
    package var exitStatus: Int32 {
        switch self {
        case let .exited(status): status
        case let .killed(signal, _), let .stoppedBeforeStart(signal, _): 128 + signal
        case let .notStarted(_, status): status
        }
    }

    /// The end of task `requestID`: `completed` on exit 0; `canceled` when someone stopped it
    /// (`interruptedBy`: the signal aidenctl passed on, or one the terminal sent both); else `failed`, with the
    /// last line of the command's stderr as the error, or what became of the command when it printed none.
    /// A command stopped because the person asked from the phone (`stoppedFromPhone`) that does not exit 0
    /// ends `canceled`, "stopped from the phone".
    package func end(
        requestID: String, command: String, lastErrorLine: String?, interruptedBy interruption: String?,
        stoppedFromPhone: Bool = false
    ) -> Command.End {
        let status: TaskStatus
        let error: String?
        if stoppedFromPhone, self != .exited(0) {
            return Command.End(requestID: requestID, status: .canceled, error: Self.stoppedFromPhone)
        }
        switch self {
        case .exited(0):
            status = .completed
            error = nil
        case let .exited(code):
            status = interruption == nil ? .failed : .canceled
            error = lastErrorLine ?? interruption.map { "stopped by \($0)" } ?? "exited with status \(code)"
        case let .killed(_, name):
            status = interruption == nil ? .failed : .canceled
            error = lastErrorLine ?? interruption.map { "stopped by \($0)" } ?? "killed by \(name)"
        case let .notStarted(reason, _):
            status = .failed
            error = RunText.clean(
                "cannot run \(TerminalText.quoted(command)): \(reason)", limit: RunText.maxErrorCharacters)
        case let .stoppedBeforeStart(_, name):
            status = .canceled
            error = "stopped by \(name) before the command started"
        }
        return Command.End(requestID: requestID, status: status, error: error)
    }

    /// The `last_error` of a run the person stopped from the phone.
    package static let stoppedFromPhone = "stopped from the phone"

    /// How long a command asked to stop from the phone (SIGTERM) has to end before it is killed (SIGKILL).
    package static let stopGrace: Duration = .seconds(5)
}
