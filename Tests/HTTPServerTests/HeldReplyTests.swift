import BoardAPI
import NetworkAddress
import Platform
import Synchronization
import Testing

@testable import HTTPServer

#if canImport(Glibc)
import Glibc
#endif

/// A request answered later (`HTTPReply.later`) on the real server loop: its connection is held, unread, until the
/// answer comes, and the server's one thread serves the other connections meanwhile; a server stopped while a
/// connection waits answers it 503 and closes it, and an answer that comes after is dropped.
@Suite(.serialized) struct HeldReplyTests {
    /// The answers the handler promised and has not given yet, in order.
    final class Promises: Sendable {
        private let waiting = Mutex<[@Sendable (HTTPResponse) -> Void]>([])

        func add(_ respond: @escaping @Sendable (HTTPResponse) -> Void) { waiting.withLock { $0.append(respond) } }

        /// Waits (bounded) until `count` answers are promised; the first of them, taken.
        func take(afterWaitingFor count: Int = 1) -> (@Sendable (HTTPResponse) -> Void)? {
            for _ in 0..<500 {
                if let first = waiting.withLock({ $0.count >= count ? $0.removeFirst() : nil }) { return first }
                usleep(10_000)
            }
            return nil
        }
    }

    func startServer(_ promises: Promises) throws -> (HTTPServer, UInt16) {
        let socket = try ListeningSocket.tcp(try SocketEndpoint("127.0.0.1:0"))
        guard case let .tcp(bound) = socket.kind else { throw SocketError(operation: "test", address: "", errno: 0) }
        let server = try HTTPServer(sockets: [socket]) { request in
            guard request.path == "/later" else { return .now(HTTPResponse(status: 200, body: Array("now".utf8))) }
            return .later { respond in promises.add(respond) }
        }
        return (server, bound.port)
    }

    @Test func aLaterAnswerHoldsItsConnectionNotTheServersThread() throws {
        let promises = Promises()
        let (server, port) = try startServer(promises)
        defer { server.stop() }
        let waiting = try RawHTTPConnection(port: port)
        waiting.send("POST /later HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n{}")
        let respond = try #require(promises.take(), "the handler was asked")

        // The thread is free: another connection is answered, several times, while the first waits.
        let other = try RawHTTPConnection(port: port)
        for _ in 0..<3 {
            let answer = try other.request("GET", "/current")
            #expect(answer.status == 200)
            #expect(answer.bodyText == "now")
        }

        respond(HTTPResponse(status: 201, body: Array("later".utf8)))
        let answer = try waiting.readResponse()
        #expect(answer.status == 201)
        #expect(answer.bodyText == "later")
        // Once answered, the connection is an ordinary keep-alive connection again.
        let next = try waiting.request("GET", "/current")
        #expect(next.status == 200)
        #expect(next.headers["connection"]?.lowercased() != "close")
    }

    @Test func twoWaitingConnectionsAreAnsweredEachWithItsOwn() throws {
        let promises = Promises()
        let (server, port) = try startServer(promises)
        defer { server.stop() }
        let first = try RawHTTPConnection(port: port)
        first.send("POST /later HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n")
        let respondFirst = try #require(promises.take())
        let second = try RawHTTPConnection(port: port)
        second.send("POST /later HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n")
        let respondSecond = try #require(promises.take())
        respondSecond(HTTPResponse(status: 200, body: Array("second".utf8)))
        #expect(try second.readResponse().bodyText == "second")
        respondFirst(HTTPResponse(status: 200, body: Array("first".utf8)))
        respondFirst(HTTPResponse(status: 500, body: Array("again".utf8)))  // a second call is ignored
        #expect(try first.readResponse().bodyText == "first")
        #expect(try first.request("GET", "/x").bodyText == "now")
    }

    @Test func stoppingWhileAConnectionWaitsClosesItAndDropsTheLateAnswer() throws {
        let promises = Promises()
        let (server, port) = try startServer(promises)
        let waiting = try RawHTTPConnection(port: port)
        waiting.send("POST /later HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n")
        let respond = try #require(promises.take())
        server.stop()
        #expect(waiting.waitForClose(), "answered 503 and closed")
        respond(HTTPResponse(status: 200))  // after the stop: dropped, nothing touches the freed connection
    }
}
