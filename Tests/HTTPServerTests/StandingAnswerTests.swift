import BoardAPI
import NetworkAddress
import Platform
import Synchronization
import Testing

@testable import HTTPServer

#if canImport(Glibc)
import Glibc
#endif

/// A standing answer (`HTTPResponse.validity`, `StandingAnswer`): sent again, without the handler, to a
/// byte-identical request on the same connection while it holds; every other request still reaches the handler, and
/// every answer is the one the handler would give.
@Suite(.serialized) struct StandingAnswerTests {
    /// A handler over a value the test publishes, as the board's over its publication: it counts what it is asked.
    final class Published: Sendable {
        let asked = Atomic<Int>(0)
        private let current = Mutex<(value: String, validity: AnswerValidity)>(("one", AnswerValidity()))

        /// The next value: the last one's answers stop holding, as the board's do (`BoardEngine`).
        func publish(_ value: String) {
            let replaced = current.withLock { current in
                defer { current = (value, AnswerValidity()) }
                return current.validity
            }
            replaced.end()
        }

        var askedCount: Int { asked.load(ordering: .relaxed) }

        func handle(_ request: HTTPRequest) -> HTTPResponse {
            asked.add(1, ordering: .relaxed)
            let (value, validity) = current.withLock { $0 }
            let text = "\(value) \(request.method) \(request.path) \(request.header("x-tag") ?? "-")"
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "text/plain"), ("ETag", "\"\(value)\"")],
                body: Array(text.utf8), reusable: true, validity: request.path == "/moving" ? nil : validity)
        }
    }

    func startServer(_ published: Published) throws -> (HTTPServer, UInt16) {
        let socket = try ListeningSocket.tcp(try SocketEndpoint("127.0.0.1:0"))
        guard case let .tcp(bound) = socket.kind else { throw SocketError(operation: "test", address: "", errno: 0) }
        return (try HTTPServer(sockets: [socket], handler: { published.handle($0) }), bound.port)
    }

    @Test func aRepeatIsAnsweredWithoutTheHandlerUntilTheNextPublication() throws {
        let published = Published()
        let (server, port) = try startServer(published)
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: port)
        for _ in 0..<5 {
            let response = try connection.request("GET", "/current")
            #expect(response.status == 200 && response.bodyText == "one GET /current -")
            #expect(response.headers["etag"] == "\"one\"" && response.headers["date"] != nil)
        }
        #expect(published.askedCount == 1, "the repeats were answered from the standing answer")
        published.publish("two")
        #expect(try connection.request("GET", "/current").bodyText == "two GET /current -")
        #expect(try connection.request("GET", "/current").bodyText == "two GET /current -")
        #expect(published.askedCount == 2, "asked once for the new publication, then standing again")
    }

    @Test func anyOtherRequestReachesTheHandler() throws {
        let published = Published()
        let (server, port) = try startServer(published)
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: port)
        #expect(try connection.request("GET", "/current").bodyText == "one GET /current -")
        #expect(try connection.request("GET", "/current?x=1").bodyText == "one GET /current -")
        #expect(try connection.request("GET", "/current", headers: ["X-Tag": "a"]).bodyText == "one GET /current a")
        #expect(try connection.request("GET", "/current", host: "127.0.0.1").bodyText == "one GET /current -")
        #expect(published.askedCount == 4, "each differs from the last by a byte")
        // Only the last standing answer is kept: the first request's bytes are asked about again.
        #expect(try connection.request("GET", "/current").bodyText == "one GET /current -")
        #expect(published.askedCount == 5)

        // An answer that does not hold is never sent again.
        #expect(try connection.request("GET", "/moving").bodyText == "one GET /moving -")
        #expect(try connection.request("GET", "/moving").bodyText == "one GET /moving -")
        #expect(published.askedCount == 7)
    }

    @Test func aHeadRepeatGetsTheHeadAndAGetItsBody() throws {
        let published = Published()
        let (server, port) = try startServer(published)
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: port)
        for _ in 0..<3 {
            connection.send("HEAD /current HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let head = try connection.readResponse(toHEAD: true)
            #expect(head.status == 200 && head.headers["content-length"] == "19" && head.body.isEmpty)
        }
        #expect(published.askedCount == 1)
        #expect(try connection.request("GET", "/current").bodyText == "one GET /current -", "no body left over")
        #expect(published.askedCount == 2)
    }

    @Test func eachConnectionKeepsItsOwn() throws {
        let published = Published()
        let (server, port) = try startServer(published)
        defer { server.stop() }
        let first = try RawHTTPConnection(port: port)
        let second = try RawHTTPConnection(port: port)
        #expect(try first.request("GET", "/current").bodyText == "one GET /current -")
        #expect(try second.request("GET", "/current").bodyText == "one GET /current -")
        #expect(published.askedCount == 2, "a new connection's first request is always asked about")
        #expect(try first.request("GET", "/current").bodyText == "one GET /current -")
        #expect(try second.request("GET", "/current").bodyText == "one GET /current -")
        #expect(published.askedCount == 2)
    }

    /// A seeded walk of requests, repeats and publications on one connection: every answer is the one the handler
    /// gives for that request and that publication, whether it was asked or not.
    @Test func everyAnswerIsTheHandlersForTheRequestAndThePublication() throws {
        let published = Published()
        let (server, port) = try startServer(published)
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: port)
        let requests: [(method: String, target: String, tag: String?)] = [
            ("GET", "/current", nil), ("GET", "/current", "a"), ("HEAD", "/current", nil), ("GET", "/moving", nil),
            ("GET", "/current?phone_id=p", nil),
        ]
        var seed: UInt64 = 0x5EED_2026_1206
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        var value = "one"
        var mismatches: [String] = []
        for step in 0..<400 {
            if next(6) == 0 {
                value = "v\(step)"
                published.publish(value)
            }
            // Mostly the same request again, as a phone's reads are.
            let (method, target, tag) = requests[next(3) == 0 ? next(requests.count) : 0]
            var text = "\(method) \(target) HTTP/1.1\r\nHost: localhost\r\n"
            if let tag { text += "X-Tag: \(tag)\r\n" }
            connection.send(text + "\r\n")
            let response = try connection.readResponse(toHEAD: method == "HEAD")
            let path = String(target.prefix { $0 != "?" })
            let expected = method == "HEAD" ? "" : "\(value) \(method) \(path) \(tag ?? "-")"
            if response.bodyText != expected || response.headers["etag"] != "\"\(value)\"" {
                mismatches.append("step \(step): \(method) \(target) got \(response.bodyText)")
            }
        }
        #expect(mismatches.isEmpty)
        #expect(published.askedCount < 300, "most repeats were answered standing (\(published.askedCount) asked)")
    }

    /// A refused request is refused every time: the admission's 403 is never kept, and a request it refuses never
    /// matches the standing answer of one it let in (the `Host` it refuses is in the bytes).
    @Test func aRefusedRequestIsRefusedEveryTime() throws {
        let published = Published()
        let socket = try ListeningSocket.tcp(try SocketEndpoint("127.0.0.1:0"))
        guard case let .tcp(bound) = socket.kind else { throw SocketError(operation: "test", address: "", errno: 0) }
        let admission = HTTPServerAdmission(admitHeaders: { request in
            request.header("host") == "evil.example" ? HTTPServerAdmissionTests.refusal : nil
        })
        let server = try HTTPServer(sockets: [socket], admission: admission, handler: { published.handle($0) })
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: bound.port)
        #expect(try connection.request("GET", "/current").bodyText == "one GET /current -")
        #expect(try connection.request("GET", "/current").bodyText == "one GET /current -")
        let refused = try connection.request("GET", "/current", host: "evil.example")
        #expect(refused.status == 403 && refused.headers["connection"] == "close")
        #expect(connection.waitForClose())
        for _ in 0..<3 {
            let again = try RawHTTPConnection(port: bound.port)
            #expect(try again.request("GET", "/current", host: "evil.example").status == 403)
        }
        #expect(published.askedCount == 1, "no refused request reached the handler")
    }

    /// Repeats that come together, or with a body, or that end the connection are read by the parser as before.
    @Test func pipelinedClosingAndBodiedRepeatsAreReadAsRequests() throws {
        let published = Published()
        let (server, port) = try startServer(published)
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: port)
        let request = "GET /current HTTP/1.1\r\nHost: localhost\r\n\r\n"
        #expect(try connection.request("GET", "/current").bodyText == "one GET /current -")
        connection.send(request + request)
        #expect(try connection.readResponse().bodyText == "one GET /current -")
        #expect(try connection.readResponse().bodyText == "one GET /current -")
        #expect(published.askedCount == 3, "two requests in one read are parsed")

        let posted = try connection.request("POST", "/current", body: Array("x".utf8))
        #expect(posted.bodyText == "one POST /current -")
        #expect(try connection.request("POST", "/current", body: Array("x".utf8)).bodyText == "one POST /current -")
        #expect(published.askedCount == 5, "a request with a body is never answered from a standing answer")

        let closing = try connection.request("GET", "/current", headers: ["Connection": "close"])
        #expect(closing.bodyText == "one GET /current -" && closing.headers["connection"] == "close")
        #expect(connection.waitForClose())
        #expect(published.askedCount == 6)
    }
}
