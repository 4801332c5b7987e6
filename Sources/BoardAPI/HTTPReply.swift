/// What a handler gives for one request: its response now, or later, from work that must not hold the server's
/// thread (a change the board's writer makes durable first, behind whatever fsync it is in). Meanwhile the server
/// reads nothing more from that connection, which keeps its slot, and goes on serving its others.
package enum HTTPReply: Sendable {
    case now(HTTPResponse)
    /// `start` is called once, on the server's thread, and returns at once, handing `respond` to the work; the work
    /// calls `respond` once, from any thread, with the response.
    case later(_ start: @Sendable (_ respond: @escaping @Sendable (HTTPResponse) -> Void) -> Void)
}
