import AgentCLI
import HTTPClient
import HTTPClientCore

/// Sends agent requests over aiden-board's Unix socket with one `HTTPClient`, whose connection is kept between
/// requests: it is close-on-exec, so `task run`'s command never inherits it, and one the daemon closed while idle is
/// noticed before the next request (or the request goes once more on a new one).
struct HTTPAgentTransport: AgentTransport {
    /// The agent socket is local: 1 s to connect and 5 s for the answer are plenty, and short enough that a
    /// stuck daemon does not hang the agent calling us. A long-poll gets its hold on top.
    static let timeout = HTTPClientRequest.Timeout(connectMilliseconds: 1_000, totalMilliseconds: 5_000)

    static func timeout(holding seconds: Int) -> HTTPClientRequest.Timeout {
        HTTPClientRequest.Timeout(
            connectMilliseconds: timeout.connectMilliseconds,
            totalMilliseconds: timeout.totalMilliseconds + max(seconds, 0) * 1_000)
    }

    private let client = HTTPClient(maxResponseBytes: AgentResponse.maxBodyBytes)

    func send(_ request: AgentRequest, socketPath: String) -> Result<AgentResponse, TransportFailure> {
        let httpRequest = HTTPClientRequest(
            method: request.method, url: "http://localhost" + request.path,
            headers: request.headers.map { ($0.name, $0.value) }, body: request.body,
            unixSocketPath: socketPath, timeout: Self.timeout(holding: request.holdSeconds))
        do {
            let response = try client.perform(httpRequest)
            return .success(AgentResponse(status: response.status, body: response.body))
        } catch {
            return .failure(Self.failure(error))
        }
    }

    static func failure(_ error: HTTPClientError) -> TransportFailure {
        switch error {
        case let .couldNotConnect(detail): .unreachable(detail)
        case .timedOut: .timedOut
        case let .connectionLost(detail): .connectionLost(detail)
        case .responseTooLarge, .invalidRequest, .malformedResponse: .other(error.description)
        }
    }
}
