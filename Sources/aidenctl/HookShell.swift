import AgentCLI
import FoundationEssentials
import Platform

/// `aidenctl hook claude|codex`: reads Claude Code's event on stdin (Codex's is the argument), runs
/// `HookRunner` with the real socket, the session files and the wall clock (the state outlives the process,
/// so no monotonic clock would do), prints what it says and exits 0 (a hook never fails the agent's session).
enum HookShell {
    /// More than any hook event Claude Code sends; what is beyond is not read.
    static let maxInputBytes = 1 << 20

    static func run(_ hook: Command.Hook, invocation: Invocation, key: String, transport: any AgentTransport) -> Never {
        CurrentProcess.ignoreBrokenPipes()
        let input = hook.agent == .claude ? InputDescriptor.standardInput.readAll(limit: maxInputBytes) : []
        let runner = HookRunner(
            socketPath: invocation.socketPath, transport: transport,
            store: HookStateFile(environment: ProcessInfo.processInfo.environment), idempotencyKey: key)
        let outcome = runner.run(hook, input: input, now: Date().timeIntervalSince1970)
        OutputDescriptor.standardOutput.write(outcome.standardOutput)
        OutputDescriptor.standardError.write(outcome.standardError)
        CurrentProcess.exit(ExitCode.ok.rawValue)
    }
}
