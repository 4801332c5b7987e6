import HTTPClientCore
import Testing

/// The response parser as transcripts: bytes in, steps out, no socket. Every transcript is also fed a byte at a
/// time, and must read the same.
@Suite struct HTTPResponseParserTests {
    enum Outcome: Equatable {
        case needMore
        case complete(status: Int, body: String, reusable: Bool)
        case failed(HTTPClientError)
    }

    static func read(_ text: String, limit: Int = 1024, expectsBody: Bool = true, split: Bool = false) -> Outcome {
        var parser = HTTPResponseParser(limit: limit, expectsBody: expectsBody, maxHeadBytes: 256)
        let bytes = Array(text.utf8)
        let pieces = split ? bytes.map { [$0] } : [bytes]
        do {
            for piece in pieces {
                if case .complete(let response, let reusable) = try parser.consume(piece) {
                    return .complete(
                        status: response.status, body: String(decoding: response.body, as: UTF8.self),
                        reusable: reusable)
                }
            }
            return .needMore
        } catch {
            return .failed(error)
        }
    }

    /// Reads `text` whole and a byte at a time, and checks both give `expected`.
    static func check(_ text: String, _ expected: Outcome, limit: Int = 1024, expectsBody: Bool = true) {
        #expect(read(text, limit: limit, expectsBody: expectsBody) == expected, "\(text.debugDescription)")
        #expect(
            read(text, limit: limit, expectsBody: expectsBody, split: true) == expected,
            "split: \(text.debugDescription)")
    }

    @Test func aLengthFramesTheBodyAndTheConnectionStays() {
        Self.check(
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", .complete(status: 200, body: "hello", reusable: true))
        Self.check("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel", .needMore)
        Self.check("HTTP/1.1 204 No Content\r\n\r\n", .complete(status: 204, body: "", reusable: true))
        Self.check(
            "HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n", .complete(status: 304, body: "", reusable: true))
        Self.check("HTTP/1.1 200 OK\nContent-Length: 2\n\nok", .complete(status: 200, body: "ok", reusable: true))
    }

    @Test func aHeadAnswerHasNoBodyWhateverItDeclares() {
        Self.check(
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", .complete(status: 200, body: "", reusable: true),
            expectsBody: false)
    }

    @Test func whoClosesTheConnection() {
        Self.check(
            "HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 0\r\n\r\n",
            .complete(status: 200, body: "", reusable: false))
        Self.check("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", .complete(status: 200, body: "", reusable: false))
        Self.check(
            "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n",
            .complete(status: 200, body: "", reusable: true))
        // Bytes after the answer that no one asked for, in the same read: the connection is out of step and is not
        // kept. (Bytes that come later are the client's to notice: it checks a kept connection is quiet first.)
        #expect(
            Self.read("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nab")
                == .complete(status: 200, body: "a", reusable: false))
    }

    @Test func chunksAreJoinedAndTheirExtensionsAndTrailersDropped() {
        Self.check(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n5 ;x=1\r\npedia\r\n0\r\nX-T: 1\r\n\r\n",
            .complete(status: 200, body: "Wikipedia", reusable: true))
        Self.check(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWikipedia\r\n",
            .failed(.malformedResponse("a chunk is longer than its size says")))
        Self.check(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n+4\r\nWiki\r\n",
            .failed(.malformedResponse("\"+4\" is not a chunk size")))
        Self.check(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
            .failed(.malformedResponse("transfer coding \"gzip, chunked\" is not supported (only chunked)")))
    }

    @Test func interimAnswersAreSkippedWithTheirHeaders() {
        var parser = HTTPResponseParser(limit: 64)
        let step = try? parser.consume(
            Array(
                "HTTP/1.1 100 Continue\r\nX-Early: 1\r\n\r\nHTTP/1.1 200 OK\r\nX-Final: 2\r\nContent-Length: 0\r\n\r\n"
                    .utf8))
        guard case .complete(let response, _)? = step else {
            Issue.record("no complete response: \(String(describing: step))")
            return
        }
        #expect(response.headers == ["x-final": "2", "content-length": "0"])
        Self.check(
            "HTTP/1.1 101 Switching Protocols\r\n\r\n", .failed(.malformedResponse("the server switched protocols")))
    }

    @Test func headersAreNamedInLowerCaseAndRepeatsJoined() throws {
        var parser = HTTPResponseParser(limit: 64)
        let step = try parser.consume(
            Array("HTTP/1.1 200 OK\r\nETag:  \"7\" \r\nSet-Cookie: a\r\nset-cookie: b\r\nX-F: one\r\n two\r\n\r\n".utf8)
        )
        #expect(step == .needMore)  // no length: the body runs to the end of the connection
        let response = try parser.finish()
        #expect(response.headers == ["etag": "\"7\"", "set-cookie": "a, b", "x-f": "one two"])
    }

    @Test func lengthsThatDisagreeOrAreNotNumbersAreRefused() {
        Self.check(
            "HTTP/1.1 200 OK\r\nContent-Length: 3, 3\r\n\r\nabc", .complete(status: 200, body: "abc", reusable: true))
        for declared in ["3, 4", "-1", "0x10", "", "1 2"] {
            Self.check(
                "HTTP/1.1 200 OK\r\nContent-Length: \(declared)\r\n\r\n",
                .failed(.malformedResponse("Content-Length \"\(declared)\" is not one length")))
        }
    }

    @Test func theLimitIsCheckedBeforeTheBodyArrives() {
        Self.check("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n", .failed(.responseTooLarge(limit: 10)), limit: 10)
        Self.check(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n5\r\n",
            .failed(.responseTooLarge(limit: 10)), limit: 10)
        Self.check("HTTP/1.1 200 OK\r\n\r\n0123456789X", .failed(.responseTooLarge(limit: 10)), limit: 10)
        Self.check(
            "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789",
            .complete(status: 200, body: "0123456789", reusable: true), limit: 10)
    }

    @Test func whatIsNotAnHTTPResponseIsRefused() {
        Self.check(
            "SSH-2.0-OpenSSH_9.2\r\n",
            .failed(.malformedResponse("\"SSH-2.0-OpenSSH_9.2\" is not an HTTP/1.0 or HTTP/1.1 status line")))
        Self.check(
            "HTTP/2 200\r\n\r\n",
            .failed(.malformedResponse("\"HTTP/2 200\" is not an HTTP/1.0 or HTTP/1.1 status line")))
        Self.check(
            "HTTP/1.1 099 Low\r\n\r\n", .failed(.malformedResponse("status 99 is not an HTTP status")))
        Self.check(
            "HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n",
            .failed(.malformedResponse("\"No colon here\" is not a header line")))
        Self.check(
            "HTTP/1.1 200 OK\r\n folded\r\n\r\n", .failed(.malformedResponse("a folded header line follows no header")))
        Self.check(
            "HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n", .failed(.malformedResponse("a line holds a bare carriage return")))
        Self.check(
            "HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 300),
            .failed(.malformedResponse("the response's heads exceed 256 bytes")))
    }

    @Test func aHostileServerGetsNoMoreThanItsBudgets() {
        // Interim heads share the heads' budget: endless 100s end in a refusal, not in reading forever.
        Self.check(
            String(repeating: "HTTP/1.1 100 Continue\r\nX: \(String(repeating: "y", count: 40))\r\n\r\n", count: 6),
            .failed(.malformedResponse("the response's heads exceed 256 bytes")))
        // The chunks' lines and trailers get the body's limit and the heads' budget, not a fresh line each.
        Self.check(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + String(repeating: "1;\(String(repeating: "e", count: 100))\r\nA\r\n", count: 12),
            .failed(.malformedResponse("the chunks' lines and trailers exceed 256 bytes beyond the body")), limit: 16)
        Self.check(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"
                + String(repeating: "X-T: \(String(repeating: "t", count: 60))\r\n", count: 40),
            .failed(.malformedResponse("the chunks' lines and trailers exceed 256 bytes beyond the body")), limit: 16)
    }

    @Test func framingThatTwoReadersCouldReadOtherwiseIsRefused() {
        Self.check(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 100\r\n\r\n0\r\n\r\n",
            .failed(.malformedResponse("the answer has both Transfer-Encoding and Content-Length")))
        Self.check(
            "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            .failed(.malformedResponse("an HTTP/1.0 answer names a transfer coding")))
        Self.check(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1 zz\r\nA\r\n0\r\n\r\n",
            .failed(.malformedResponse("\"1 zz\" is not a chunk size")))
        Self.check(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1 \t;a=b\r\nA\r\n0\r\n\r\n",
            .complete(status: 200, body: "A", reusable: true))
        Self.check(
            "HTTP/1.1 200 OK\r\nContent-Length: 03\r\n\r\nabc", .complete(status: 200, body: "abc", reusable: true))
    }

    @Test func aControlCharacterInAValueIsRefused() {
        for value in ["a\u{0}b", "a\u{1}b", "a\u{7F}b"] {
            Self.check(
                "HTTP/1.1 200 OK\r\nX-V: \(value)\r\nContent-Length: 0\r\n\r\n",
                .failed(.malformedResponse("header x-v holds a control character")))
        }
        Self.check(
            "HTTP/1.1 200 OK\r\nX-V: a\r\n \u{0}\r\nContent-Length: 0\r\n\r\n",
            .failed(.malformedResponse("header x-v holds a control character")))
        Self.check(
            "HTTP/1.1 200 OK\r\nX-V: a\tb\r\nContent-Length: 0\r\n\r\n",
            .complete(status: 200, body: "", reusable: true))
    }

    @Test func theEndOfTheConnection() throws {
        var untilClose = HTTPResponseParser(limit: 64)
        _ = try untilClose.consume(Array("HTTP/1.0 200 OK\r\n\r\nall".utf8))
        #expect(try untilClose.finish().body == Array("all".utf8))

        var silent = HTTPResponseParser(limit: 64)
        #expect(!silent.hasStarted)
        #expect(throws: HTTPClientError.connectionLost("the server closed the connection without answering")) {
            try silent.finish()
        }

        var cut = HTTPResponseParser(limit: 64)
        _ = try cut.consume(Array("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\npart".utf8))
        #expect(cut.hasStarted)
        #expect(throws: HTTPClientError.connectionLost("the connection closed in the middle of the response")) {
            try cut.finish()
        }
    }
}
