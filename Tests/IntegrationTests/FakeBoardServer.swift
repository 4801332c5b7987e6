import BoardAPI
import Foundation
import HTTPServer
import NetworkAddress

/// A stand-in for the board's HTTP side on loopback that answers every request the same scripted
/// way (a 403, a malformed body, a plain empty board) and counts the requests per path.
final class FakeBoardServer {
    enum Behavior: Sendable {
        /// `current` says not_found, the events ring is empty: a healthy idle board.
        case idle
        case forbidden
        case malformed
    }

    let port: UInt16
    private let server: HTTPServer
    private let counts: Mutexed<[String: Int]>

    var url: String { "http://127.0.0.1:\(port)" }

    /// `delayMicroseconds` slows every answer (a board busy elsewhere), so fetches take time.
    init(_ behavior: Behavior, delayMicroseconds: UInt32 = 0) throws {
        let socket = try ListeningSocket.tcp(try SocketEndpoint("127.0.0.1:0"))
        guard case let .tcp(endpoint) = socket.kind else { throw IntegrationError("not a TCP socket") }
        port = endpoint.port
        let counts = Mutexed<[String: Int]>([:])
        self.counts = counts
        server = try HTTPServer(sockets: [socket]) { request in
            counts.update { $0[request.path, default: 0] += 1 }
            if delayMicroseconds > 0 { usleep(delayMicroseconds) }
            return FakeBoardServer.answer(request, behavior)
        }
    }

    deinit { server.stop() }

    func count(_ path: String) -> Int { counts.get()[path] ?? 0 }

    private static func answer(_ request: HTTPRequest, _ behavior: Behavior) -> HTTPResponse {
        let json = [("Content-Type", "application/json")]
        switch behavior {
        case .forbidden:
            return HTTPResponse(
                status: 403, headers: json,
                body: Array(
                    #"{"status":"error","error":{"code":"forbidden","message":"peer 127.0.0.1 is not allowed"}}"#.utf8))
        case .malformed:
            return HTTPResponse(status: 200, headers: json, body: Array(#"{"status":"ok","live_activity":42"#.utf8))
        case .idle:
            switch request.path {
            case "/status":
                return HTTPResponse(
                    status: 200, headers: json,
                    body: Array(#"{"status":"ok","instance_id":"fake01","epoch":77}"#.utf8))
            case "/api/live-activity/current":
                return HTTPResponse(status: 200, headers: json, body: Array(#"{"status":"not_found"}"#.utf8))
            case "/api/live-activity/events":
                let body =
                    #"{"status":"ok","epoch":77,"generation":"77-g","events":[],"next":0,"#
                    + #""truncated":false,"reset_required":false}"#
                return HTTPResponse(status: 200, headers: json, body: Array(body.utf8))
            default:
                return HTTPResponse(status: 200, headers: json, body: Array(#"{"status":"ok"}"#.utf8))
            }
        }
    }
}
