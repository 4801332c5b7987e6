/// A parsed command line: the command plus the global options that apply to every command.
package struct Invocation: Sendable, Equatable {
    /// Where aiden-board's agent socket is when neither `--socket` nor the environment says otherwise.
    package static let defaultSocketPath = "/run/aiden/agent.sock"
    /// Overrides the default socket path (but not `--socket`); empty means unset.
    package static let socketEnvironmentVariable = "AIDEN_AGENT_SOCKET"

    package var socketPath: String
    package var json: Bool
    package var command: Command

    package init(socketPath: String = Invocation.defaultSocketPath, json: Bool = false, command: Command) {
        self.socketPath = socketPath
        self.json = json
        self.command = command
    }
}
