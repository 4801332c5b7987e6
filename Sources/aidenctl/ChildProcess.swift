import AgentCLI
import Platform

/// The command `task run` runs (`Platform.SpawnedProcess`: in aidenctl's process group, so it keeps the terminal,
/// its stderr and, for progress, its stdout on pipes aidenctl reads), with what became of it in `task run`'s terms.
struct ChildProcess {
    let process: SpawnedProcess

    var pid: Int32 { process.id }
    /// aidenctl's read end of the command's stderr, non-blocking.
    var standardError: InputDescriptor { process.standardError }
    /// aidenctl's read end of the command's stdout when it is read for progress, non-blocking.
    var standardOutput: InputDescriptor? { process.standardOutput }

    /// Signals `task run` blocks or ignores, which the command gets at their defaults.
    static let resetSignals = [
        SignalNumber.interrupt, SignalNumber.terminate, SignalNumber.hangUp, SignalNumber.child,
        SignalNumber.brokenPipe, SignalNumber.quit,
    ]

    /// What became of a spawn.
    enum Spawn {
        case started(ChildProcess)
        /// It cannot run (`RunTermination.notStarted`).
        case failed(RunTermination)
    }

    /// Starts `arguments` (looked up on PATH) with `environment`.
    static func spawn(_ arguments: [String], environment: [String: String], pipeStandardOutput: Bool) -> Spawn {
        do {
            return .started(
                ChildProcess(
                    process: try SpawnedProcess.spawn(
                        arguments, environment: environment, pipeStandardOutput: pipeStandardOutput,
                        defaultSignals: resetSignals)))
        } catch {
            // A shell's statuses: 127 when the program is not there, 126 when it cannot be executed.
            return .failed(.notStarted(reason: error.reason, status: error.isNotFound ? 127 : 126))
        }
    }

    /// The command's end if it has ended (reaped), else nil; never blocks.
    func reap() -> RunTermination? {
        switch process.reap() {
        case nil: nil
        case let .exited(status)?: .exited(status)
        case let .killed(signal)?: .killed(signal: signal, name: SignalNumber.name(of: signal))
        case .unknown?: .exited(1)  // someone else reaped it; nothing better to say
        }
    }
}
