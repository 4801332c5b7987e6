import AgentCLI
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// `aidenctl hook claude|codex`: reads Claude Code's event on stdin (Codex's is the argument), runs
/// `HookRunner` with the real socket, the session files and the wall clock (the state outlives the process,
/// so no monotonic clock would do), prints what it says and exits 0 (a hook never fails the agent's session).
enum HookShell {
    /// More than any hook event Claude Code sends; what is beyond is not read.
    static let maxInputBytes = 1 << 20

    static func run(_ hook: Command.Hook, invocation: Invocation, key: String, transport: any AgentTransport) -> Never {
        signal(SIGPIPE, SIG_IGN)
        let input = hook.agent == .claude ? readInput() : []
        let runner = HookRunner(
            socketPath: invocation.socketPath, transport: transport,
            store: HookStateFile(environment: ProcessInfo.processInfo.environment), idempotencyKey: key)
        let outcome = runner.run(hook, input: input, now: Date().timeIntervalSince1970)
        StandardStream.write(outcome.standardOutput, to: 1)
        StandardStream.write(outcome.standardError, to: 2)
        exit(ExitCode.ok.rawValue)
    }

    private static func readInput() -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < maxInputBytes {
            let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer.prefix(count)
        }
        return bytes
    }
}
