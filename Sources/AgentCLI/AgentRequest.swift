/// The HTTP request a command makes to aiden-board's agent API, as values: the executable sends it over the
/// Unix socket, tests compare it.
package struct AgentRequest: Sendable, Equatable {
    package struct Header: Sendable, Equatable {
        package var name: String
        package var value: String

        package init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    package var method: String
    /// Absolute path with percent-encoded segments, e.g. `/v1/tasks/chat_ab12/end`.
    package var path: String
    package var headers: [Header]
    package var body: [UInt8]
    /// How long the board may hold the answer back (a long-poll's `timeout` or `wait`, docs/protocol.md §6.6):
    /// the transport waits that much longer for it.
    package var holdSeconds: Int

    package init(method: String, path: String, headers: [Header] = [], body: [UInt8] = [], holdSeconds: Int = 0) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.holdSeconds = holdSeconds
    }

    /// The header's value, matched case-insensitively.
    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
