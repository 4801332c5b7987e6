import FoundationEssentials
import Testing
import WireFormat

@Suite struct JSONStringTests {
    @Test(arguments: [
        ("plain", #""plain""#),
        ("a\"b\\c\u{1}", #""a\"b\\c\u0001""#),
        ("line\nbreak\r\ttab", #""line\nbreak\r\ttab""#),
        ("\u{1F}\u{7F}", #""\u001f\#u{7F}""#),
        ("\u{0}\u{8}\u{C}\u{1B}", #""\u0000\b\f\u001b""#),
        ("é/ü 🙂", #""é/ü 🙂""#),
        ("", #""""#),
    ])
    func quotes(_ text: String, _ expected: String) {
        #expect(JSONString.quote(text) == expected)
    }

    /// Every ASCII character, and text beyond it, spelled as the board's encoder spells it: what is written by hand
    /// and what `JSONEncoder` writes for the same value are the same bytes.
    @Test func spellsWhatTheEncoderSpells() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var texts = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) }
        texts += ["é/ü 🙂", "\u{2028}\u{2029}\u{FEFF}", "a\"b\\c\u{8}\u{C}</script>"]
        for text in texts {
            #expect(
                JSONString.quote(text) == String(decoding: try encoder.encode(text), as: UTF8.self),
                "\(Array(text.utf8))")
        }
    }

    /// `append` writes what `quote` returns, after what the buffer already holds.
    @Test func appendsTheQuotedBytes() {
        var bytes = Array("[".utf8)
        JSONString.append("a\"é\u{1}", to: &bytes)
        #expect(bytes == Array("[".utf8) + Array(JSONString.quote("a\"é\u{1}").utf8))
    }
}
