import BoardAPI
import Dispatch
import NetworkAddress
import Platform
import Synchronization
import Testing

@testable import HTTPServer

#if canImport(Glibc)
import Glibc
#endif

/// Answers given later (`HTTPReply.later`) on the real server loop: the connection is held, unread, the loop's
/// one thread goes on serving everyone else, and the answer comes from another thread when it is ready, or from
/// the `start` closure itself, on the loop's thread; stopping the server answers what is still owed.
@Suite(.serialized) struct DeferredResponseTests {
    /// `/later/N` is answered N ms later from another thread, `/never` only by the server, `/early` from inside the
    /// handler's closure (before the loop has gone back to waiting); anything else at once.
    static let replier: HTTPServer.ReplyHandler = { request in
        if request.path == "/never" { return .later { _ in } }
        if request.path == "/early" {
            return .later { respond in respond(HTTPResponse(status: 200, body: Array("early".utf8))) }
        }
        if request.path.hasPrefix("/later/"), let milliseconds = Int(request.path.dropFirst(7)) {
            return .later { respond in
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) {
                    respond(HTTPResponse(status: 200, body: Array("later \(milliseconds)".utf8)))
                    respond(HTTPResponse(status: 500, body: Array("a second answer".utf8)))
                }
            }
        }
        return .now(HTTPResponse(status: 200, body: Array("now".utf8)))
    }

    func startServer(limits: HTTPServerLimits = HTTPServerLimits()) throws -> (HTTPServer, UInt16) {
        let socket = try ListeningSocket.tcp(try SocketEndpoint("127.0.0.1:0"))
        guard case let .tcp(bound) = socket.kind else { throw SocketError(operation: "test", address: "", errno: 0) }
        return (try HTTPServer(sockets: [socket], limits: limits, replying: Self.replier), bound.port)
    }

    @Test func aHeldRequestDoesNotHoldTheThread() throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        let held = try RawHTTPConnection(port: port)
        held.send("GET /later/1500 HTTP/1.1\r\nHost: localhost\r\n\r\n")
        // Meanwhile the one thread answers others, many times over.
        let clock = ContinuousClock()
        let started = clock.now
        let other = try RawHTTPConnection(port: port)
        for _ in 0..<20 { #expect(try other.request("GET", "/x").bodyText == "now") }
        #expect(clock.now - started < .milliseconds(1_000), "not queued behind the held request")
        let answer = try held.readResponse()
        #expect(answer.status == 200)
        #expect(answer.bodyText == "later 1500", "the first answer counts, once")
        // The connection goes on: kept alive, the next request answered as usual.
        #expect(try held.request("GET", "/after").bodyText == "now")
        #expect(try held.request("GET", "/later/10").bodyText == "later 10")
    }

    @Test func anAnswerGivenBeforeTheHandlerReturnsIsSentAtOnce() throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: port)
        for _ in 0..<50 { #expect(try connection.request("GET", "/early").bodyText == "early") }
        for _ in 0..<50 { #expect(try connection.request("GET", "/later/0").bodyText == "later 0") }
    }

    @Test func anAnswerNeverSentIsA503AtTheLongestDeferral() throws {
        let limits = HTTPServerLimits(requestDeadline: .seconds(1), longestDeferral: .milliseconds(600))
        let (server, port) = try startServer(limits: limits)
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: port, receiveTimeoutSeconds: 5)
        let answer = try connection.request("GET", "/never")
        #expect(answer.status == 503)
        #expect(answer.bodyText.contains(#""code":"unavailable""#))
    }

    @Test func aHeldRequestKeepsItsSlotSoHeldOnesAreBoundedByThePeersLimit() throws {
        let (server, port) = try startServer(limits: HTTPServerLimits(perPeerConnectionLimit: 2))
        defer { server.stop() }
        let held = try (0..<2).map { _ in try RawHTTPConnection(port: port) }
        for connection in held { connection.send("GET /never HTTP/1.1\r\nHost: localhost\r\n\r\n") }
        usleep(100_000)
        let third = try RawHTTPConnection(port: port, receiveTimeoutSeconds: 3)
        third.send("GET /x HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(third.waitForClose(), "two held requests fill the peer's two slots: a third connection is refused")
    }

    @Test func stoppingAnswersEveryHeldRequest() throws {
        let (server, port) = try startServer()
        let held = try (0..<3).map { _ in try RawHTTPConnection(port: port) }
        for connection in held { connection.send("GET /never HTTP/1.1\r\nHost: localhost\r\n\r\n") }
        // Let the loop's thread read them and hold them.
        #expect(try RawHTTPConnection(port: port).request("GET", "/x").status == 200)
        usleep(100_000)
        server.stop()
        for connection in held {
            let answer = try connection.readResponse()
            #expect(answer.status == 503)
            #expect(answer.bodyText.contains("stopping"))
        }
    }

    /// Requests pipelined behind a held one wait for it, unread, and are answered in order once it is.
    @Test func requestsPipelinedBehindAHeldOneAreAnsweredAfterItInOrder() throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: port)
        connection.send(
            "GET /later/200 HTTP/1.1\r\nHost: a\r\n\r\nGET /now HTTP/1.1\r\nHost: a\r\n\r\n"
                + "GET /later/10 HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(try connection.readResponse().bodyText == "later 200")
        #expect(try connection.readResponse().bodyText == "now")
        #expect(try connection.readResponse().bodyText == "later 10")
    }

    /// Stopping answers a held request 503 with `Connection: close`: what was pipelined behind it is never read,
    /// so no request is taken in that could be left owed and unanswered.
    @Test func stoppingClosesAHeldRequestsConnectionWithItsAnswer() throws {
        let (server, port) = try startServer()
        let connection = try RawHTTPConnection(port: port)
        connection.send("GET /never HTTP/1.1\r\nHost: a\r\n\r\nGET /never HTTP/1.1\r\nHost: a\r\n\r\n")
        ThreadSleep.sleep(for: .milliseconds(200))
        server.stop()
        let answer = try connection.readResponse()
        #expect(answer.status == 503)
        #expect(answer.headers["connection"] == "close")
        #expect(connection.waitForClose())
    }
}
