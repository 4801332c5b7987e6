/// A parsed command line: the command plus the global options that apply to every command.
package struct Invocation: Sendable, Equatable {
    /// Where aiden-board's agent socket is when neither `--socket` nor the environment says otherwise.
    package static let defaultSocketPath = "/run/aiden/agent.sock"
    /// Overrides the default socket path (but not `--socket`); empty means unset.
    package static let socketEnvironmentVariable = "AIDEN_AGENT_SOCKET"
    /// The request id `task update`, `task end` and `task show` use when none is given; `task run` sets it
    /// for its command. Empty means unset.
    package static let taskIDEnvironmentVariable = "AIDEN_TASK_ID"
    /// The idempotency key a write uses when `--idempotency-key` is not given. Empty means unset.
    package static let idempotencyKeyEnvironmentVariable = "AIDEN_IDEMPOTENCY_KEY"
    /// Every variable aidenctl reads, so the executable passes exactly these in.
    package static let environmentVariables = [
        socketEnvironmentVariable, taskIDEnvironmentVariable, idempotencyKeyEnvironmentVariable,
    ]

    package var socketPath: String
    package var json: Bool
    /// `-q`: a start prints only the id, an update or an end nothing.
    package var quiet: Bool
    package var command: Command

    package init(
        socketPath: String = Invocation.defaultSocketPath, json: Bool = false, quiet: Bool = false,
        command: Command
    ) {
        self.socketPath = socketPath
        self.json = json
        self.quiet = quiet
        self.command = command
    }
}
