import Testing

@testable import BoardAPI

/// The request parser as transcripts: bytes in, in the pieces a socket may give them, steps out.
@Suite struct HTTPRequestParserTests {
    static let limits = HTTPRequestParser.Limits(headerBytes: 256, bodyBytes: 64)

    /// What the parser makes of `pieces` fed one after another: each step, written short (`head GET /x`,
    /// `body 5`, `more`, `failed 400`).
    static func transcript(_ pieces: [String], limits: HTTPRequestParser.Limits = limits) -> [String] {
        var parser = HTTPRequestParser(limits: limits)
        var input: [UInt8] = []
        var cursor = 0
        var steps: [String] = []
        for piece in pieces {
            input.append(contentsOf: piece.utf8)
            reading: while true {
                switch parser.next(in: input, at: &cursor) {
                case .needMore:
                    steps.append("more")
                    break reading
                case let .head(head):
                    steps.append("head \(head.method) \(head.path)")
                case let .body(body):
                    steps.append("body \(String(decoding: body, as: UTF8.self))")
                case let .failed(failure):
                    steps.append("failed \(failure.status)")
                    break reading
                }
            }
        }
        return steps
    }

    static func head(_ text: String) throws -> HTTPRequestParser.Head {
        var parser = HTTPRequestParser(limits: limits)
        var cursor = 0
        guard case let .head(head) = parser.next(in: Array(text.utf8), at: &cursor) else {
            throw ParseFailed(text: text)
        }
        return head
    }

    struct ParseFailed: Error { let text: String }

    @Test func aRequestWithoutABodyIsItsHeadThenAnEmptyBody() {
        #expect(
            Self.transcript(["GET /current HTTP/1.1\r\nHost: b\r\n\r\n"])
                == ["head GET /current", "body ", "more"])
    }

    /// The phone's request split at every byte: the same steps, only with more waiting between them.
    @Test func aRequestTrickledAByteAtATimeReadsTheSame() {
        let text = "POST /v1/x HTTP/1.1\r\nHost: b\r\nContent-Length: 5\r\n\r\nhello"
        let steps = Self.transcript(text.map { String($0) }).filter { $0 != "more" }
        #expect(steps == ["head POST /v1/x", "body hello"])
    }

    @Test func pipelinedRequestsAreReadOneAfterAnother() {
        let two = "GET /a HTTP/1.1\r\n\r\nPOST /b HTTP/1.1\r\nContent-Length: 2\r\n\r\nokGET /c HTTP/1.1\r\n\r\n"
        #expect(
            Self.transcript([two])
                == ["head GET /a", "body ", "head POST /b", "body ok", "head GET /c", "body ", "more"])
    }

    @Test func aChunkedBodyIsJoinedAndItsTrailerSkipped() {
        let text =
            "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n1\r\n!\r\n0\r\nTrailer: t\r\n\r\n"
        #expect(Self.transcript([text]) == ["head POST /x", "body hello!", "more"])
    }

    /// A bare LF ends a line too (RFC 9112 §2.2), and empty lines before the request line are skipped.
    @Test func bareLineFeedsAndLeadingEmptyLinesAreRead() {
        #expect(Self.transcript(["\r\n\nGET /x HTTP/1.1\nHost: b\n\n"]) == ["head GET /x", "body ", "more"])
    }

    /// The path is percent-decoded; the query's `+` is a space and each piece is decoded; a name without `=` has "".
    @Test func thePathAndQueryAreDecodedAsTheRoutersExpect() throws {
        let head = try Self.head("GET /api/x%20y?phone_id=p%2B1&flag&q=a+b&&=v HTTP/1.1\r\n\r\n")
        #expect(head.path == "/api/x y")
        #expect(head.query.map { "\($0.name)=\($0.value)" } == ["phone_id=p+1", "flag=", "q=a b", "=v"])
        #expect(try Self.head("GET /a%zz%4 HTTP/1.1\r\n\r\n").path == "/a%zz%4", "a broken escape stays as it is")
        #expect(try Self.head("GET http://board:8080/current?x=1 HTTP/1.1\r\n\r\n").path == "/current")
    }

    @Test func headerNamesAreLowerCasedAndTheFirstOfARepeatedOneKept() throws {
        let head = try Self.head("GET / HTTP/1.1\r\nHOST: one\r\nX-Tag:  a b \r\nhost: two\r\n\r\n")
        #expect(head.headers == ["host": "one", "x-tag": "a b"])
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\n\r\n", false), ("GET / HTTP/1.1\r\nConnection: close\r\n\r\n", true),
        ("GET / HTTP/1.0\r\n\r\n", true), ("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", false),
        ("GET / HTTP/1.1\r\nConnection: keep-alive, close\r\n\r\n", true),
        ("GET / HTTP/1.1\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n", true),
    ])
    func connectionsCloseWhenTheClientSaysOrSpeaksHTTP10(text: String, closes: Bool) throws {
        #expect(try Self.head(text).closeAfter == closes)
    }

    @Test func onlyARequestWithABodyWaitsForContinue() throws {
        #expect(try Self.head("POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n").expectsContinue)
        #expect(try !Self.head("GET / HTTP/1.1\r\nExpect: 100-continue\r\n\r\n").expectsContinue)
    }

    /// Whatever would let two readers disagree about where a request ends is refused, never guessed at.
    @Test(arguments: [
        ("GET / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nContent-Length: 0x10\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nX: a\rb\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nX: a\r\n folded\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nBad Name: a\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nNoColon\r\n\r\n", 400),
        ("GET  / HTTP/1.1\r\n\r\n", 400),
        ("GET /\u{7F} HTTP/1.1\r\n\r\n", 400),
        ("G(T / HTTP/1.1\r\n\r\n", 400),
        ("GET relative HTTP/1.1\r\n\r\n", 400),
        ("GET / HTTX/1.1\r\n\r\n", 400),
        ("GET / HTTP/2.0\r\n\r\n", 505),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
        ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 501),
        ("\rGET / HTTP/1.1\r\n\r\n", 400),
        ("GET /a%00b HTTP/1.1\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n", 400),
        ("GET /a?x=%00 HTTP/1.1\r\n\r\n", 400),
    ])
    func ambiguousOrBrokenHeadsAreRefused(text: String, status: Int) {
        #expect(Self.transcript([text]).last == "failed \(status)")
    }

    @Test func aHeadOverTheLimitIs431WhetherOrNotItsEndCame() {
        let long = "GET / HTTP/1.1\r\nCookie: \(String(repeating: "c", count: 300))"
        #expect(Self.transcript([long]) == ["failed 431"], "no end in sight and already over")
        #expect(Self.transcript([long + "\r\n\r\n"]) == ["failed 431"])
        let fits = "GET / HTTP/1.1\r\nCookie: \(String(repeating: "c", count: 200))\r\n\r\n"
        #expect(Self.transcript([fits]) == ["head GET /", "body ", "more"])
    }

    /// A declared length over the limit is refused on the step after the head, so the server can answer a refusal
    /// decided from the head alone first; a chunked one when its chunks pass the limit.
    @Test func aBodyOverTheLimitIs413() {
        #expect(
            Self.transcript(["POST / HTTP/1.1\r\nContent-Length: 65\r\n\r\n"]) == ["head POST /", "failed 413"])
        #expect(
            Self.transcript(["POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n"])
                == ["head POST /", "failed 413"])
        let chunk = String(repeating: "a", count: 40)
        #expect(
            Self.transcript(["POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n28\r\n\(chunk)\r\n28\r\n"])
                == ["head POST /", "failed 413"])
        let exact = String(repeating: "b", count: 64)
        #expect(
            Self.transcript(["POST / HTTP/1.1\r\nContent-Length: 64\r\n\r\n\(exact)"])
                == ["head POST /", "body \(exact)", "more"])
    }

    @Test(arguments: [
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n",
    ])
    func brokenChunksAreRefused(text: String) {
        #expect(Self.transcript([text]).last == "failed 400")
    }

    @Test func afterAFailureEveryStepFailsTheSame() {
        var parser = HTTPRequestParser(limits: Self.limits)
        var cursor = 0
        let input = Array("BAD\r\n\r\nGET / HTTP/1.1\r\n\r\n".utf8)
        guard case .failed(.malformed) = parser.next(in: input, at: &cursor) else {
            Issue.record("the first step should fail")
            return
        }
        guard case .failed(.malformed) = parser.next(in: input, at: &cursor) else {
            Issue.record("a failed parser reads nothing more")
            return
        }
    }

    /// Where a read splits a line between its CR and its LF changes nothing, at the limits too.
    @Test func aSplitBetweenCRAndLFAtALimitReadsAsTheWhole() {
        let longest = String(repeating: "a", count: HTTPRequestParser.chunkLineLimit - 2)
        let chunked = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1;\(longest)"
        let whole = Self.transcript([chunked + "\r\nx\r\n0\r\n\r\n"])
        #expect(whole.last(where: { $0 != "more" }) == "body x")
        #expect(
            Self.transcript([chunked + "\r", "\nx\r\n0\r\n\r\n"]).filter { $0 != "more" }
                == whole.filter { $0 != "more" })
        let limits = HTTPRequestParser.Limits(headerBytes: 64, bodyBytes: 64)
        let trailer =
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nT: \(String(repeating: "t", count: 59))"
        let trailerWhole = Self.transcript([trailer + "\r\n\r\n"], limits: limits).filter { $0 != "more" }
        #expect(trailerWhole == ["head POST /", "body "])
        // The trailer takes the whole room: the blank line's CR comes alone, its LF after.
        #expect(Self.transcript([trailer + "\r\n\r", "\n"], limits: limits).filter { $0 != "more" } == trailerWhole)
    }

    @Test func anHTTP10RequestThatAsksToKeepTheConnectionSaysSo() throws {
        #expect(try Self.head("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").keepAliveAsked)
        #expect(try !Self.head("GET / HTTP/1.0\r\n\r\n").keepAliveAsked)
        #expect(try !Self.head("GET / HTTP/1.1\r\nConnection: keep-alive\r\n\r\n").keepAliveAsked)
    }
}
