/// Why no complete answer came back from the daemon.
package enum TransportFailure: Error, Sendable, Equatable {
    /// Nothing accepted the connection, e.g. "connection refused", "no such file or directory".
    case unreachable(String)
    /// Connected, but no complete answer in time.
    case timedOut
    /// The connection closed or reset before a complete answer; the request may or may not have been applied.
    case connectionLost(String)
    /// Anything else (e.g. an answer over the size limit).
    case other(String)
}
