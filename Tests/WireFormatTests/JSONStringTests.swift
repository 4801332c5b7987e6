import Testing
import WireFormat

@Suite struct JSONStringTests {
    @Test(arguments: [
        ("plain", #""plain""#),
        ("a\"b\\c\u{1}", #""a\"b\\c\u0001""#),
        ("line\nbreak\r\ttab", #""line\nbreak\r\ttab""#),
        ("\u{1F}\u{7F}", #""\u001f\#u{7F}""#),
        ("\u{0}\u{8}\u{C}\u{1B}", #""\u0000\u0008\u000c\u001b""#),
        ("é/ü 🙂", #""é/ü 🙂""#),
        ("", #""""#),
    ])
    func quotes(_ text: String, _ expected: String) {
        #expect(JSONString.quote(text) == expected)
    }

    /// `append` writes what `quote` returns, after what the buffer already holds.
    @Test func appendsTheQuotedBytes() {
        var bytes = Array("[".utf8)
        JSONString.append("a\"é\u{1}", to: &bytes)
        #expect(bytes == Array("[".utf8) + Array(JSONString.quote("a\"é\u{1}").utf8))
    }
}
