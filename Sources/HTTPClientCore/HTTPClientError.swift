/// Why a request got no complete response. Callers branch on the case (aidenctl maps them to exit codes and
/// retries a start once after `.connectionLost`); the text is for people.
package enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing accepted the connection: e.g. "connection refused", "no such file or directory" for a socket path,
    /// "no such device" for a local interface that is not there.
    case couldNotConnect(String)
    /// No complete answer within the request's connect or total timeout.
    case timedOut
    /// The peer closed or reset the connection before a complete answer (maybe after reading the request).
    case connectionLost(String)
    /// The body grew, or was declared, past the client's limit; the transfer was abandoned.
    case responseTooLarge(limit: Int)
    /// The request cannot be sent as given (bad method, control characters in a header, zero timeout).
    case invalidRequest(String)
    /// What came back is not an HTTP/1.x response this client can read; the connection is closed.
    case malformedResponse(String)

    package var description: String {
        switch self {
        case let .couldNotConnect(detail): return "could not connect: \(detail)"
        case .timedOut: return "timed out waiting for a response"
        case let .connectionLost(detail): return "connection lost before a complete response: \(detail)"
        case let .responseTooLarge(limit): return "response body exceeds \(limit) bytes"
        case let .invalidRequest(detail): return "invalid request: \(detail)"
        case let .malformedResponse(detail): return "malformed response: \(detail)"
        }
    }
}
