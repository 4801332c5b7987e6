import Testing

@testable import PhoneCore

#if canImport(Glibc)
import Glibc
#endif

@Suite struct TerminalCellWidthTests {
    /// (what, text, cells). One grapheme cluster per row unless the row says otherwise; the
    /// terminal's view of each row is in IntegrationTests.TerminalCardTests (tmux).
    static let cases: [(String, String, Int)] = [
        ("ASCII letter", "a", 1), ("ASCII line", "Open Settings", 13), ("space", " ", 1),
        ("Latin-1", "é", 1), ("Cyrillic", "Ж", 1), ("Greek (Ambiguous: 1 outside CJK locales)", "Ω", 1),
        ("e + combining acute", "e\u{0301}", 1), ("a + two combining marks", "a\u{0323}\u{0302}", 1),
        ("lone combining mark", "\u{0301}", 0), ("Devanagari with a spacing mark", "कि", 2),
        ("CJK ideograph", "設", 2), ("CJK line", "設定を開く", 10), ("CJK Extension B", "\u{20B9F}", 2),
        ("ideograph assigned after Unicode 14 (Extension H)", "\u{31350}", 2),
        ("unassigned plane 3 (UAX #11 default W)", "\u{3FFF0}", 2),
        ("hiragana", "あ", 2), ("katakana", "カ", 2), ("halfwidth katakana", "ｶ", 1),
        ("ideographic space", "\u{3000}", 2), ("ideographic full stop", "。", 2),
        ("Hangul syllable", "한", 2), ("Hangul line", "설정 열기", 9),
        ("Hangul conjoining jamo L V T", "\u{1100}\u{1161}\u{11A8}", 2),
        ("fullwidth A", "Ａ", 2), ("fullwidth digit", "１", 2), ("fullwidth exclamation", "！", 2),
        ("fullwidth won sign", "￦", 2), ("halfwidth hangul", "ﾡ", 1),
        ("rocket (emoji presentation, wide)", "🚀", 2), ("check mark button", "✅", 2),
        ("heart without VS16 (text presentation)", "\u{2764}", 1), ("heart with VS16", "\u{2764}\u{FE0F}", 2),
        ("watch with VS15 (still wide)", "\u{231A}\u{FE0E}", 2), ("thumbs up", "👍", 2),
        ("thumbs up, skin tone (modifier keeps its cells)", "👍🏽", 4),
        ("family ZWJ sequence", "👨\u{200D}👩\u{200D}👧", 2),
        ("woman technologist, skin tone, ZWJ", "👩🏽\u{200D}💻", 4),
        ("rainbow flag (VS16 + ZWJ)", "🏳\u{FE0F}\u{200D}🌈", 2), ("pirate flag", "🏴\u{200D}☠\u{FE0F}", 2),
        ("flag Japan (regional indicator pair)", "🇯🇵", 2), ("lone regional indicator", "🇯", 2),
        ("keycap one", "1\u{FE0F}\u{20E3}", 2), ("keycap hash", "#\u{FE0F}\u{20E3}", 2),
        ("emoji added after Unicode 14 (pink heart)", "\u{1FA77}", 2),
        ("zero-width joiner", "\u{200D}", 0), ("zero-width space", "\u{200B}", 0),
        ("zero-width non-joiner", "\u{200C}", 0), ("word joiner", "\u{2060}", 0),
        ("variation selector 16 alone", "\u{FE0F}", 0), ("byte order mark", "\u{FEFF}", 0),
        ("right-to-left override", "\u{202E}", 0), ("escape (stripped before measuring)", "\u{1B}", 0),
        ("newline (stripped before measuring)", "\n", 0), ("DEL", "\u{7F}", 0), ("C1 control", "\u{85}", 0),
        ("mixed line", "設定 ✅ Wi-Fi 🇯🇵", 16),
        ("mixed line with a family", "Photos 👨\u{200D}👩\u{200D}👧 写真", 14),
    ]

    @Test(arguments: cases)
    func cellsOf(what: String, text: String, cells: Int) {
        #expect(TerminalCellWidth.of(text) == cells, "\(what)")
    }

    /// A line is the sum of its grapheme clusters, each measured whole.
    @Test func aLineIsTheSumOfItsCharacters() {
        for (what, text, _) in Self.cases {
            #expect(TerminalCellWidth.of(text) == text.reduce(0) { $0 + TerminalCellWidth.of($1) }, "\(what)")
        }
    }

    /// An ASCII line is measured byte by byte, without forming clusters: the same sum, for every pair of ASCII
    /// bytes (CR LF, the one cluster of two, included), and a line that is not all ASCII is measured by clusters.
    @Test func anASCIILineIsTheSumOfItsCharacters() {
        for first in UInt8(0)..<0x80 {
            for second in UInt8(0)..<0x80 {
                let text = String(decoding: [first, second], as: UTF8.self)
                #expect(
                    TerminalCellWidth.of(text) == text.reduce(0) { $0 + TerminalCellWidth.of($1) }, "\([first, second])"
                )
            }
        }
        #expect(TerminalCellWidth.of("Open\r\nSettings\u{7F} 設") == 15)
        #expect(TerminalCellWidth.of("Open Settings"[...]) == 13)
    }

    /// (text, cells, kept): whole characters only; a wide one that would straddle is left out.
    static let prefixes: [(String, Int, String)] = [
        ("Open Settings", 4, "Open"), ("設定を開く", 5, "設定"), ("設定を開く", 6, "設定を"), ("設定", 1, ""),
        ("e\u{0301}e\u{0301}", 1, "e\u{0301}"), ("a👨\u{200D}👩\u{200D}👧b", 2, "a"),
        ("a👨\u{200D}👩\u{200D}👧b", 3, "a👨\u{200D}👩\u{200D}👧"), ("🇯🇵🇫🇷", 3, "🇯🇵"), ("abc", 0, ""),
        ("abc", 10, "abc"),
    ]

    @Test(arguments: prefixes)
    func prefixesCutOnWholeCharacters(text: String, cells: Int, kept: String) {
        let prefix = TerminalCellWidth.prefix(Substring(text), fitting: cells)
        #expect(Array(prefix.text) == Array(kept), "unicode scalars: \(prefix.text.unicodeScalars.map(\.value))")
        #expect(prefix.cells == TerminalCellWidth.of(kept))
    }

    /// The generated tables are what the binary search needs: sorted, not overlapping, and the
    /// version they come from is stated.
    @Test func theTablesAreSortedAndStateTheirVersion() {
        for table in [TerminalCellWidth.wide, TerminalCellWidth.conjoiningJamo] {
            #expect(!table.isEmpty)
            for (before, after) in zip(table, table.dropFirst()) {
                #expect(before.upperBound < after.lowerBound, "\(before) then \(after)")
            }
        }
        #expect(TerminalCellWidth.unicodeVersion == "14.0.0")
        #expect(TerminalCellWidth.wide.first == 0x1100...0x115F, "Hangul choseong, the first wide range")
    }
}

#if canImport(Glibc)
extension TerminalCellWidthTests {
    /// Code point by code point the measure is glibc's `wcwidth` (glibc 2.36: Unicode 14, the
    /// tables' version) for every code point both know, but format characters (the card strips
    /// them; glibc draws the soft hyphen and the prepended concatenation marks such as U+0600) and
    /// the one mark Unicode 15 made a spacing mark.
    @Test func everyCodePointIsWhatGlibcsWcwidthSays() throws {
        // Glibc's module leaves wcwidth out (an X/Open extension in wchar.h): looked up by name.
        let symbol = try #require(dlsym(dlopen(nil, RTLD_NOW), "wcwidth"), "glibc has no wcwidth")
        let wcwidth = unsafeBitCast(symbol, to: (@convention(c) (wchar_t) -> Int32).self)
        let utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", nil)
        try #require(utf8 != nil, "glibc's C.UTF-8 locale is missing")
        let previous = uselocale(utf8)
        defer {
            uselocale(previous)
            freelocale(utf8)
        }
        var differences: [String] = []
        for value in UInt32(0x20)...0x10_FFFF {
            guard let scalar = Unicode.Scalar(value), scalar.properties.generalCategory != .format,
                value != 0x1171E,  // AHOM CONSONANT SIGN MEDIAL RA: Mn in Unicode 14, Mc in Swift's newer data
                let age = scalar.properties.age, age.major < 14 || (age.major == 14 && age.minor == 0)
            else { continue }
            let glibc = Int(wcwidth(wchar_t(bitPattern: value)))
            if glibc >= 0 && glibc != TerminalCellWidth.of(scalar) {
                differences.append("U+\(String(value, radix: 16, uppercase: true)): glibc \(glibc)")
            }
        }
        #expect(differences.isEmpty, "\(differences.count): \(differences.prefix(20))")
    }
}
#endif
