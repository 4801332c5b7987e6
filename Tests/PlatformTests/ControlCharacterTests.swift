import Logging
import Testing

/// The one rule for control characters in text from outside, and its four uses: escaped (logs), shown (escaped
/// and bounded, for messages), readable (for people), refused (task text).
@Suite struct ControlCharacterTests {
    /// Each hostile scalar, its kind, and how each use treats it.
    @Test(
        arguments: [
            // C0: NUL, tab, line feed, carriage return, ESC, unit separator.
            ("\u{0}", ControlCharacter.control), ("\t", .control), ("\n", .control), ("\r", .control),
            ("\u{1B}", .control), ("\u{1F}", .control),
            // DEL and C1: NEL, CSI, APC.
            ("\u{7F}", .control), ("\u{85}", .control), ("\u{9B}", .control), ("\u{9F}", .control),
            ("\u{2028}", .separator), ("\u{2029}", .separator),
            // Bidi marks, embeddings, overrides and isolates.
            ("\u{061C}", .bidi), ("\u{200E}", .bidi), ("\u{200F}", .bidi), ("\u{202A}", .bidi), ("\u{202B}", .bidi),
            ("\u{202C}", .bidi), ("\u{202D}", .bidi), ("\u{202E}", .bidi), ("\u{2066}", .bidi), ("\u{2067}", .bidi),
            ("\u{2068}", .bidi), ("\u{2069}", .bidi),
            // Zero-width characters, soft hyphen, byte order mark, a tag.
            ("\u{200B}", .format), ("\u{200C}", .format), ("\u{200D}", .format), ("\u{2060}", .format),
            ("\u{FEFF}", .format), ("\u{00AD}", .format), ("\u{E0041}", .format),
        ] as [(Unicode.Scalar, ControlCharacter)])
    func hostileScalarsAreClassified(scalar: Unicode.Scalar, kind: ControlCharacter) {
        #expect(ControlCharacter(scalar) == kind)
        let text = "a\(scalar)b"
        #expect(ControlCharacter.escaping(text) == "a" + Self.escape(scalar) + "b")
        #expect(ControlCharacter.shown(text) == ControlCharacter.escaping(text))
        #expect(!ControlCharacter.readable(text).unicodeScalars.contains(scalar))
        let refused = kind == .bidi || (kind == .control && !["\t", "\n", "\r"].contains(scalar))
        #expect(ControlCharacter.isRefusedInText(scalar, allowed: ["\t", "\n", "\r"]) == refused)
        #expect(ControlCharacter.isRefusedInText(scalar) == (kind == .control || kind == .bidi))
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": #"\n"#
        case "\r": #"\r"#
        case "\t": #"\t"#
        default: #"\u{"# + String(scalar.value, radix: 16) + "}"
        }
    }

    /// What shows as itself stays as it is in every use.
    @Test(arguments: ["plain ASCII ~!", "Café 設定 ✅", "e\u{301}", "\u{A0}nbsp", "\\n is a backslash and n"])
    func ordinaryTextIsLeftAlone(text: String) {
        for scalar in text.unicodeScalars {
            #expect(ControlCharacter(scalar) == nil)
        }
        #expect(ControlCharacter.shown(text) == text)
        #expect(ControlCharacter.readable(text) == text)
    }

    /// The bounded form: at most `limit` scalars with the ellipsis, an escape never cut, and the cut never
    /// between a letter and its combining marks or inside a scalar.
    @Test(arguments: [
        ("short", 10, "short"),
        ("0123456789", 10, "0123456789"),
        ("0123456789A", 10, "012345678…"),
        // An escape is whole or gone: `\u{1b}` is 6 scalars, and does not fit after "abcd" in 9 with the mark.
        ("abcd\u{1B}[2J", 9, "abcd…"),
        ("ab\u{1B}[2J", 12, #"ab\u{1b}[2J"#),
        ("line\none\u{2028}two", 40, #"line\none\u{2028}two"#),
        ("pay\u{202E}lanoitan\u{202C}", 40, #"pay\u{202e}lanoitan\u{202c}"#),
        ("\u{2066}x\u{2069}\u{200B}", 40, #"\u{2066}x\u{2069}\u{200b}"#),
        // Combining sequences at the cut: "e" with two acute accents is 3 scalars and one character.
        ("abcde\u{301}\u{301}f", 7, "abcd…"),
        ("abcde\u{301}\u{301}", 8, "abcde\u{301}\u{301}"),
        // A letter with 300 marks is one character longer than any limit: only the ellipsis is left.
        ("e" + String(repeating: "\u{301}", count: 300), 20, "…"),
        // Regional indicators pair into flags; a flag is never cut in half.
        ("🇩🇪🇫🇷🇯🇵", 5, "🇩🇪🇫🇷…"),
        ("🇩🇪🇫🇷🇯🇵", 4, "🇩🇪…"),
        ("\r\n\r\n", 5, #"\r\n…"#),
    ])
    func shownTextIsEscapedAndBounded(text: String, limit: Int, expected: String) {
        let shown = ControlCharacter.shown(text, limit: limit)
        #expect(shown.unicodeScalars.elementsEqual(expected.unicodeScalars))
        #expect(shown.unicodeScalars.count <= limit)
        #expect(!shown.unicodeScalars.contains { ControlCharacter($0) != nil })
    }

    @Test func longTextIsShownAtTheDefaultLimit() {
        let shown = ControlCharacter.shown(String(repeating: "\u{1B}", count: 1000))
        #expect(shown.unicodeScalars.count <= ControlCharacter.shownLimit && shown.hasSuffix("…"))
        #expect(shown.hasPrefix(#"\u{1b}\u{1b}"#))
    }

    /// `bounded` is the cut alone: the mark the caller asks for, and nothing escaped.
    @Test(arguments: [
        ("0123456789A", 10, "...", "0123456..."), ("日本語のタイトル", 6, "...", "日本語..."),
        ("abcdef", 3, "", "abc"), ("ab", 1, "...", "a"), ("e\u{301}e\u{301}", 3, "", "e\u{301}"),
        ("x\u{202E}yz", 3, "…", "x\u{202E}…"),
    ])
    func boundedCutsBetweenCharacters(text: String, limit: Int, ellipsis: String, expected: String) {
        let cut = ControlCharacter.bounded(text, limit: limit, ellipsis: ellipsis)
        #expect(cut.unicodeScalars.elementsEqual(expected.unicodeScalars))
        #expect(cut.unicodeScalars.count <= limit)
    }

    /// For people: controls and separators become spaces, bidi and format characters go, but for a joiner
    /// inside an emoji sequence.
    @Test(arguments: [
        ("a\u{0}b\u{7F}c\u{85}d\u{9B}e", "a b c d e"), ("one\u{2028}two\u{2029}", "one two "),
        ("\u{202A}\u{202B}\u{202D}x\u{202E}\u{202C}", "x"), ("\u{2066}\u{2067}\u{2068}y\u{2069}", "y"),
        ("a\u{200B}\u{200C}\u{2060}\u{FEFF}b", "ab"), ("a\u{200D}b", "ab"), ("👨\u{200D}👩", "👨\u{200D}👩"),
        ("e\u{202E}\u{301}", "e\u{301}"),
    ])
    func readableTextDropsWhatActsOnTheReader(text: String, expected: String) {
        #expect(ControlCharacter.readable(text).unicodeScalars.elementsEqual(expected.unicodeScalars))
    }
}
