import Testing

@testable import Platform

/// The answer `UnixSocketGet` reads, split into its status and body; anything that is not an HTTP/1.x answer is
/// none. (The exchange over a real socket: `BlueZTests.BlueZDoctorTests`, against a server on a Unix socket.)
@Suite struct UnixSocketGetTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func anAnswerIsItsStatusAndBody() {
        let answer = UnixSocketGet.parse(
            Self.bytes("HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{\"a\":1}"))
        #expect(answer == UnixSocketGet.Answer(status: 200, body: Self.bytes("{\"a\":1}")))
        let empty = UnixSocketGet.parse(Self.bytes("HTTP/1.1 503 Service Unavailable\r\n\r\n"))
        #expect(empty == UnixSocketGet.Answer(status: 503, body: []))
    }

    @Test(arguments: [
        "", "HTTP/1.0 200 OK\r\n", "SSH-2.0-OpenSSH\r\n\r\n", "HTTP/2 200\r\n\r\n", "HTTP/1.0 20 OK\r\n\r\n",
        "HTTP/1.0 abc OK\r\n\r\n", "HTTP/1.0\r\n\r\n",
    ])
    func whatIsNotAnHTTPAnswerIsNone(text: String) {
        #expect(UnixSocketGet.parse(Self.bytes(text)) == nil, "\(text.debugDescription)")
    }

    @Test func nothingListeningIsNone() {
        #expect(
            UnixSocketGet.get("/v1/status", socket: "/nonexistent/aiden.sock", limit: 1024, timeoutMilliseconds: 100)
                == nil)
    }
}
