import Testing

@testable import AgentCLI

@Suite("task run: the last line of the command's stderr, as the error")
struct LastLineTests {
    private func last(_ chunks: [String]) -> String? {
        var line = LastLine()
        for chunk in chunks { line.feed(Array(chunk.utf8)) }
        return line.text
    }

    static let cases: [([String], String?)] = [
        ([], nil),
        (["\n\n  \n"], nil),
        (["first\nsecond\n"], "second"),
        (["first\nsecond\n\n  \n"], "second"),
        (["no newline at the end"], "no newline at the end"),
        (["split ", "across ", "reads\n"], "split across reads"),
        (["windows\r\n"], "windows"),
        (["10%\r50%\r100%\n"], "100%"),
        (["\u{1B}[31merror:\u{1B}[0m disk full\n\u{1B}[0m\n"], "error: disk full"),
        (["tab\tand bell\u{07}\n"], "tab and bell"),
        (["bad utf8 \u{FF}"], "bad utf8 ÿ"),
        // The board refuses bidi controls in last_error: they go, like the other format characters (it used
        // to pass them on, and the board refused the task's end).
        (["\u{202E}gnp.exe\u{202C} failed\u{200B}\n"], "gnp.exe failed"),
        (["\u{2066}a\u{2069}\u{2028}b\n"], "a b"),
        (["e\u{301}\n\n"], "e\u{301}"),
    ]

    @Test(arguments: cases)
    func keepsTheLastNonBlankLine(chunks: [String], expected: String?) {
        #expect(last(chunks) == expected)
    }

    @Test func invalidUTF8BecomesReplacementCharacters() {
        var line = LastLine()
        line.feed([0x62, 0x61, 0x64, 0x20, 0xFF, 0x0A])
        #expect(line.text == "bad \u{FFFD}")
    }

    @Test func aHugeLineIsCutToOneScreenful() {
        let text = last([String(repeating: "y", count: 100_000) + "\n"])
        #expect(text?.count == 500)
    }

    /// The cut counts Unicode scalars, the board's unit, and falls between characters.
    @Test func theCutNeverSplitsACharacter() {
        let text = last([String(repeating: "e\u{301}", count: 400) + "\n"])
        #expect(text?.unicodeScalars.count == 500 && text?.count == 250)
    }
}
