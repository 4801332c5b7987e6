import AgentCLI
import FoundationEssentials
import Platform

/// Composition root of aidenctl: the real socket, the real environment and real randomness go into the
/// pure `AgentCLI`; its outcome is written out and becomes the exit status. `task run`, `task wait`,
/// `events --follow`, `mcp` and `hook`, which need a process, a clock, stdin or files, are driven here by
/// `TaskRunner`, `TaskWaiter`, `EventsFollower`, `MCPStdio` and `HookShell`.
enum Entry {
    static func main() -> Never {
        let all = ProcessInfo.processInfo.environment
        let environment = all.filter { Invocation.environmentVariables.contains($0.key) }
        var random = SystemRandomNumberGenerator()
        let key = IdempotencyKey.make(using: &random)
        let transport = HTTPAgentTransport()
        let parsed = AgentCLI.parse(
            Array(CommandLine.arguments.dropFirst()), environment: environment, version: BuildInfo.version)
        switch parsed {
        case let .done(outcome):
            finish(outcome)
        case let .invocation(invocation):
            switch invocation.command {
            case let .taskRun(run):
                CurrentProcess.exit(
                    TaskRunner(invocation: invocation, run: run, transport: transport).execute(startKey: key))
            case let .taskWait(wait):
                TaskWaiter(invocation: invocation, wait: wait, transport: transport).execute()
            case let .events(events) where events.follow:
                EventsFollower(invocation: invocation, events: events, transport: transport).execute()
            case let .hook(hook):
                HookShell.run(hook, invocation: invocation, key: key, transport: transport)
            case .mcp:
                MCPStdio.serve(
                    MCPServer(socketPath: invocation.socketPath, version: BuildInfo.version, transport: transport))
            default:
                finish(AgentCLI.perform(invocation, idempotencyKey: key, transport: transport))
            }
        }
    }

    private static func finish(_ outcome: CLIOutcome) -> Never {
        OutputDescriptor.standardOutput.write(outcome.standardOutput)
        OutputDescriptor.standardError.write(outcome.standardError)
        CurrentProcess.exit(outcome.exitCode.rawValue)
    }
}
