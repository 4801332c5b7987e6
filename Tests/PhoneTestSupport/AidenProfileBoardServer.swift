import BoardAPI
import HTTPServer
import NetworkAddress

/// An `AidenProfileBoard` on loopback HTTP (127.0.0.1, a free port): what the phone's real transport talks to.
package final class AidenProfileBoardServer: Sendable {
    package let board: AidenProfileBoard
    package let port: UInt16
    private let server: HTTPServer

    package var url: String { "http://127.0.0.1:\(port)" }

    package init(board: AidenProfileBoard = AidenProfileBoard()) throws {
        self.board = board
        let socket = try ListeningSocket.tcp(try SocketEndpoint("127.0.0.1:0"))
        guard case let .tcp(endpoint) = socket.kind else { throw ServerError() }
        port = endpoint.port
        server = try HTTPServer(sockets: [socket]) { request in
            var query: [String: String] = [:]
            for item in request.query where query[item.name] == nil { query[item.name] = item.value }
            let (status, body) = board.handle(method: request.method, path: request.path, query: query)
            return HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: body)
        }
    }

    deinit { server.stop() }

    package struct ServerError: Error {}
}
