import WireFormat

/// The seam between the CLI core and the socket: the executable sends with `HTTPClient`, tests answer in memory.
package protocol AgentTransport {
    func send(_ request: AgentRequest, socketPath: String) -> Result<AgentResponse, TransportFailure>
}

/// What came back over the socket: the status and the raw body (headers are not needed).
package struct AgentResponse: Sendable, Equatable {
    package var status: Int
    package var body: [UInt8]

    package init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}

extension AgentResponse {
    /// The most body bytes aidenctl accepts: the largest answer the board can give, a full task list
    /// (`WireLimits.maxTaskListBytes`, every task at the snapshot limit). Anything larger is not a board's answer.
    package static let maxBodyBytes = WireLimits.maxTaskListBytes
}
