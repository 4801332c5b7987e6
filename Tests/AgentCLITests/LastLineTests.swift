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
}
