import AgentCLI

#if canImport(Glibc)
import Glibc
#endif

/// Composition root of aidenctl: the real socket, the real environment and real randomness go into the
/// pure `AgentCLI.run`; its outcome is written out and becomes the exit status.
enum Entry {
    static func main() -> Never {
        var environment: [String: String] = [:]
        if let value = getenv(Invocation.socketEnvironmentVariable) {
            environment[Invocation.socketEnvironmentVariable] = String(cString: value)
        }
        var random = SystemRandomNumberGenerator()
        let outcome = AgentCLI.run(
            arguments: Array(CommandLine.arguments.dropFirst()), environment: environment,
            idempotencyKey: IdempotencyKey.make(using: &random),
            transport: CurlAgentTransport())
        StandardStream.write(outcome.standardOutput, to: 1)
        StandardStream.write(outcome.standardError, to: 2)
        exit(outcome.exitCode.rawValue)
    }
}
