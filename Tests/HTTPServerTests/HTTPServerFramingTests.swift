import BoardAPI
import NetworkAddress
import Platform
import Testing

@testable import HTTPServer

#if canImport(Glibc)
import Glibc
#endif

/// The server's own framing on loopback: what its loop does with bytes that the parser's transcripts cannot show
/// (pipelining, `100 Continue`, refusals that close, a peer that reads nothing).
@Suite(.serialized) struct HTTPServerFramingTests {
    func startServer(
        limits: HTTPServerLimits = HTTPServerLimits(), handler: @escaping HTTPServer.Handler = HTTPServerLiveTests.echo
    ) throws -> (HTTPServer, UInt16) {
        try HTTPServerLiveTests().startServer(limits: limits, handler: handler)
    }

    /// Requests sent back to back before any answer are answered in order, each with its own answer.
    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: port)
        connection.send(
            "GET /one HTTP/1.1\r\nHost: a\r\n\r\nPOST /two HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"
                + "HEAD /three HTTP/1.1\r\n\r\nGET /four?x=1 HTTP/1.1\r\n\r\n")
        #expect(try connection.readResponse().bodyText.hasPrefix("GET /one "))
        #expect(try connection.readResponse().bodyText.hasSuffix("body=3"))
        let head = try connection.readResponse(toHEAD: true)
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(try connection.readResponse().bodyText.hasPrefix("GET /four ?x=1 "))
    }

    /// curl sends `Expect: 100-continue` before a larger body and waits for the interim answer: it gets it, then the
    /// answer to the whole request. A body declared over the limit gets its 413 instead, and never a `100`.
    @Test func aClientThatWaitsForContinueGetsItAndThenItsAnswer() throws {
        let (server, port) = try startServer(limits: HTTPServerLimits(maxBodyBytes: 1024))
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: port)
        connection.send("POST /v1/tasks HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
        #expect(try connection.readResponse().status == 100)
        connection.send("hello")
        let answer = try connection.readResponse()
        #expect(answer.status == 200 && answer.bodyText.hasSuffix("body=5"))
        let over = try RawHTTPConnection(port: port)
        over.send("POST /v1/tasks HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 4096\r\n\r\n")
        #expect(try over.readResponse().status == 413)
    }

    /// Bytes that are not a request get their status, with `Connection: close`, and the connection ends; the server
    /// goes on serving.
    @Test(arguments: [
        ("GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400, "bad_request"),
        ("GET /x%00 HTTP/1.1\r\n\r\n", 400, "bad_request"),
        ("GET / HTTP/2.0\r\n\r\n", 505, "version_not_supported"),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "not_implemented"),
    ])
    func bytesThatAreNotARequestAreAnsweredAndTheConnectionClosed(text: String, status: Int, code: String) throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: port)
        connection.send(text)
        let answer = try connection.readResponse()
        #expect(answer.status == status)
        #expect(answer.bodyText.contains("\"code\":\"\(code)\""))
        #expect(answer.headers["connection"] == "close")
        #expect(connection.waitForClose())
        #expect(try RawHTTPConnection(port: port).request("GET", "/after").status == 200)
    }

    /// A peer that asks for an answer and reads none of it holds its slot only until the idle limit: the answer is
    /// given up (less of it arrives than was sent), well before the request deadline would end the connection.
    @Test func aPeerThatReadsNoneOfItsAnswerIsClosedAtTheIdleLimit() throws {
        let body = [UInt8](repeating: 0x61, count: 32 * 1024 * 1024)
        let (server, port) = try startServer(limits: HTTPServerLimits(idleTimeoutSeconds: 1)) { _ in
            HTTPResponse(status: 200, body: body)
        }
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: port, receiveTimeoutSeconds: 8)
        connection.send("GET /big HTTP/1.1\r\nHost: a\r\n\r\n")
        ThreadSleep.sleep(for: .milliseconds(2_500))
        let received = connection.bytesUntilClose()
        #expect(received.closed, "the stalled answer must be given up")
        #expect(received.count < body.count, "\(received.count) bytes: the whole answer went out")
    }

    /// A chunked body is joined and handed over whole, and the connection goes on.
    @Test func aChunkedBodyArrivesWhole() throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: port)
        connection.send(
            "POST /chunks HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"
                + "6;x=y\r\n world\r\n0\r\nTrailer: t\r\n\r\n")
        let answer = try connection.readResponse()
        #expect(answer.status == 200 && answer.bodyText.hasSuffix("body=11"))
        #expect(try connection.request("GET", "/after").status == 200)
    }

    /// An HTTP/1.0 client that asks to keep the connection is told it is kept (else it takes the answer as the
    /// last), and its next request is served on it.
    @Test func anHTTP10ClientThatAsksForKeepAliveIsToldSo() throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: port)
        connection.send("GET /one HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let first = try connection.readResponse()
        #expect(first.headers["connection"] == "keep-alive")
        connection.send("GET /two HTTP/1.0\r\n\r\n")
        let second = try connection.readResponse()
        #expect(second.bodyText.hasPrefix("GET /two "))
        #expect(second.headers["connection"] == "close")
    }
}
