import Configuration
import Dispatch
import HTTPClient
import PhoneCore

/// Performs the session's requests. The seam between the phone's decisions and HTTP: tests answer
/// by hand, production uses `HTTPBoardTransport`.
package protocol BoardTransport: Sendable {
    /// Performs `request` and calls `completion` exactly once, on any thread, never from inside
    /// `send` itself being blocked on a lock the caller holds.
    func send(_ request: BoardRequest, completion: @escaping @Sendable (BoardResponse) -> Void)
}

/// The board over HTTP (libcurl), one request at a time on its own serial queue, so a slow board
/// never blocks Wake reception. Short timeouts: a board on a USB cable answers in milliseconds, and
/// an unplugged one should show as unreachable quickly.
package final class HTTPBoardTransport: BoardTransport {
    package static let timeout = HTTPClientRequest.Timeout(connectMilliseconds: 1_000, totalMilliseconds: 3_000)

    package let board: BoardURL
    private let client = HTTPClient(maxResponseBytes: 256 * 1024)
    private let queue = DispatchQueue(label: "aiden.phone.http")
    private let timeout: HTTPClientRequest.Timeout

    package init(board: BoardURL, timeout: HTTPClientRequest.Timeout = HTTPBoardTransport.timeout) {
        self.board = board
        self.timeout = timeout
    }

    package func send(_ request: BoardRequest, completion: @escaping @Sendable (BoardResponse) -> Void) {
        queue.async { [self] in completion(perform(request)) }
    }

    /// Performs the request on the caller's thread (used at shutdown, when nothing else runs).
    package func perform(_ request: BoardRequest) -> BoardResponse {
        let http = HTTPClientRequest(
            method: request.method, url: board.url(path: request.target),
            headers: request.headers, body: request.body, timeout: timeout)
        do {
            let response = try client.perform(http)
            return .answered(status: response.status, etag: response.headers["etag"], body: response.body)
        } catch {
            return .failed(detail: "\(board.authority): \(error)")
        }
    }
}
