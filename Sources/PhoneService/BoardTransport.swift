import Configuration
import HTTPClient
import HTTPClientCore
import PhoneCore
import Platform

/// Performs the session's requests. The seam between the phone's decisions and HTTP: tests answer
/// by hand, production uses `HTTPBoardTransport`.
package protocol BoardTransport: Sendable {
    /// Performs `request` and calls `completion` exactly once, on any thread, never from inside
    /// `send` itself being blocked on a lock the caller holds.
    func send(_ request: BoardRequest, completion: @escaping @Sendable (BoardResponse) -> Void)
}

/// The board over HTTP (`HTTPClient`), one request at a time on its own lane, so a slow board
/// never blocks Wake reception. Short timeouts: a board on a USB cable answers in milliseconds, and
/// an unplugged one should show as unreachable quickly. Requests to a board that is not on loopback
/// leave through `[board] interface` alone (`SO_BINDTODEVICE`, which needs no privilege since Linux 5.7),
/// so a network elsewhere in the same subnet never answers for the board;
/// with the board unplugged they fail at once ("no such device") instead of going another way.
package final class HTTPBoardTransport: BoardTransport {
    package static let timeout = HTTPClientRequest.Timeout(connectMilliseconds: 1_000, totalMilliseconds: 3_000)

    package let board: BoardURL
    /// The interface every request leaves through (`aidenboard0`), or nil.
    package let localEnd: HTTPClientRequest.LocalEnd?
    private let client = HTTPClient(maxResponseBytes: 256 * 1024)
    private let lane = Lane("aiden.phone.http")
    private let timeout: HTTPClientRequest.Timeout

    package init(board: PhoneConfiguration.Board, timeout: HTTPClientRequest.Timeout = HTTPBoardTransport.timeout) {
        self.board = board.url
        self.localEnd = Self.localEnd(for: board)
        self.timeout = timeout
    }

    /// The configured interface for a board reached over a link, nil for one on loopback or without an interface
    /// configured.
    package static func localEnd(for board: PhoneConfiguration.Board) -> HTTPClientRequest.LocalEnd? {
        guard let name = board.interface, !board.url.isLoopback else { return nil }
        return .interface(name)
    }

    package func send(_ request: BoardRequest, completion: @escaping @Sendable (BoardResponse) -> Void) {
        lane.run { [self] in completion(perform(request)) }
    }

    /// Performs the request on the caller's thread (used at shutdown, when nothing else runs).
    package func perform(_ request: BoardRequest) -> BoardResponse {
        let http = HTTPClientRequest(
            method: request.method, url: board.url(path: request.target),
            headers: request.headers, body: request.body, timeout: timeout, localEnd: localEnd)
        do {
            let response = try client.perform(http)
            return .answered(
                status: response.status, etag: response.headers["etag"], body: response.body,
                retryAfter: BoardResponse.retryAfter(response.headers["retry-after"]))
        } catch {
            return .failed(detail: "\(board.authority): \(error)")
        }
    }
}
