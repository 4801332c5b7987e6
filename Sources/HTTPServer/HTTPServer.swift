import BoardAPI
import NetworkAddress
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server of the project's own: one `ServerLoop` (one thread in `epoll_wait`, memory flat in the number
/// of clients) per listening socket. Requests are read whole (the head bounded by `maxHeaderBytes`, the body by
/// `maxBodyBytes`) and handed to a synchronous, non-blocking handler that returns the response, or
/// (`HTTPReply.later`) says it will come from other work: the connection then holds its slot but not the thread
/// until the work responds from any thread (within `HTTPServerLimits.longestDeferral`), and the loop serves the
/// other connections. `admission` refuses connections (answered 403 from their own budget) and requests before
/// they are read; the loop cuts connections that miss the request or header deadline (`HTTPServerLimits`).
package final class HTTPServer: Sendable {
    package typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse
    /// A handler that may answer later (`HTTPReply.later`), without holding the server's thread.
    package typealias ReplyHandler = @Sendable (HTTPRequest) -> HTTPReply

    private let loops: Mutex<[ServerLoop]>
    /// What each loop listens on, in the order given.
    package let listeners: [ListeningSocket.Kind]

    /// Starts serving on every socket, every request answered at once by `handler`.
    package convenience init(
        sockets: [ListeningSocket], limits: HTTPServerLimits = HTTPServerLimits(),
        admission: HTTPServerAdmission = HTTPServerAdmission(), handler: @escaping Handler
    ) throws(HTTPServerError) {
        try self.init(sockets: sockets, limits: limits, admission: admission, replying: { .now(handler($0)) })
    }

    /// Starts serving on every socket, with a handler that may answer later; on failure, nothing is left running
    /// and the sockets are closed.
    package init(
        sockets: [ListeningSocket], limits: HTTPServerLimits = HTTPServerLimits(),
        admission: HTTPServerAdmission = HTTPServerAdmission(), replying handler: @escaping ReplyHandler
    ) throws(HTTPServerError) {
        var started: [ServerLoop] = []
        for (index, socket) in sockets.enumerated() {
            guard let loop = ServerLoop.start(socket: socket, handler: handler, limits: limits, admission: admission)
            else {
                started.forEach { $0.stop() }
                for remaining in sockets[index...] { close(remaining.descriptor) }
                throw HTTPServerError.startFailed("\(socket.kind)")
            }
            started.append(loop)
        }
        self.loops = Mutex(started)
        self.listeners = sockets.map(\.kind)
    }

    /// Stops every loop (closing its socket). A request being handled finishes; one whose answer is still owed
    /// (`HTTPReply.later`) is answered 503 first, with half a second to go out. Idempotent.
    package func stop() {
        let running = loops.withLock { list -> [ServerLoop] in
            defer { list.removeAll() }
            return list
        }
        running.forEach { $0.stop() }
    }

    deinit { stop() }
}

package enum HTTPServerError: Error, Equatable, Sendable, CustomStringConvertible {
    case startFailed(String)

    package var description: String {
        switch self {
        case let .startFailed(listener): return "the server could not start on \(listener) (no thread or descriptor)"
        }
    }
}
