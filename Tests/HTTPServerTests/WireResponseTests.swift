import BoardAPI
import Testing

@testable import HTTPServer

/// The bytes an answer goes out as, and the `Date` they carry.
@Suite struct WireResponseTests {
    static let date = HTTPDate(second: 784_111_777)  // RFC 9110's example instant

    @Test func theDateIsRFC9110sFormat() {
        #expect(String(decoding: Self.date.bytes, as: UTF8.self) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(String(decoding: HTTPDate(second: 0).bytes, as: UTF8.self) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(
            String(decoding: HTTPDate(second: 951_782_400).bytes, as: UTF8.self) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(
            String(decoding: HTTPDate(second: 1_798_761_599).bytes, as: UTF8.self) == "Thu, 31 Dec 2026 23:59:59 GMT")
        for second in stride(from: 0, to: 4_102_444_800, by: 7_777_777) {
            #expect(HTTPDate(second: second).bytes.count == HTTPDate.length)
        }
    }

    @Test func anAnswerIsItsStatusDateFieldsLengthAndBody() {
        let response = HTTPResponse(status: 200, headers: [("Content-Type", "text/plain")], body: Array("hi".utf8))
        let wire = WireResponse(response, date: Self.date, closing: false)
        #expect(
            String(decoding: wire.sent(headOnly: false), as: UTF8.self)
                == "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Type: text/plain\r\n"
                + "Content-Length: 2\r\n\r\nhi")
        #expect(String(decoding: wire.sent(headOnly: true), as: UTF8.self).hasSuffix("Content-Length: 2\r\n\r\n"))
        #expect(!wire.closes)
    }

    /// The server frames the body: a handler's own length or coding is not sent, and the last answer says close.
    @Test func theServerFramesTheBodyAndSaysWhenItCloses() {
        let response = HTTPResponse(
            status: 403, headers: [("Content-Length", "99"), ("Transfer-Encoding", "chunked"), ("X-A", "a\r\nb")],
            body: Array("no".utf8))
        let text = String(
            decoding: WireResponse(response, date: Self.date, closing: true).sent(headOnly: false), as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 403 Forbidden\r\n"))
        #expect(!text.contains("Content-Length: 99") && !text.contains("chunked"))
        #expect(text.contains("X-A: a b\r\n"), "a line break in a field cannot split it")
        #expect(text.hasSuffix("Content-Length: 2\r\nConnection: close\r\n\r\nno"))
        let saidByHandler = HTTPResponse(status: 403, headers: [("Connection", "close")])
        let wire = WireResponse(saidByHandler, date: Self.date, closing: false)
        #expect(wire.closes, "a handler's Connection: close closes")
        #expect(String(decoding: wire.sent(headOnly: false), as: UTF8.self).ranges(of: "Connection").count == 1)
    }

    @Test(arguments: [204, 304, 100])
    func statusesWithoutABodySendNoLengthAndNoBody(status: Int) {
        let wire = WireResponse(HTTPResponse(status: status, body: Array("x".utf8)), date: Self.date, closing: false)
        let text = String(decoding: wire.sent(headOnly: false), as: UTF8.self)
        #expect(!text.contains("Content-Length"))
        #expect(text.hasSuffix("\r\n\r\n"))
    }

    /// A kept answer is the same bytes, its `Date` moved to the current second in place.
    @Test func aKeptAnswerIsRedatedNotRebuilt() {
        var prepared = PreparedResponses()
        let response = HTTPResponse(status: 200, body: Array("{}".utf8), reusable: true)
        let first = prepared.wire(for: response, now: Self.date)
        let later = HTTPDate(second: Self.date.second + 61)
        let second = prepared.wire(for: response, now: later)
        #expect(
            String(decoding: second.sent(headOnly: false), as: UTF8.self)
                == String(decoding: first.sent(headOnly: false), as: UTF8.self).replacing("08:49:37", with: "08:50:38"))
    }
}
