/// The escape sequences that keep the card in place at the bottom of a terminal: redraw it over
/// itself, or print a line (an alert, a log line) above it and draw it again below. Pure: it
/// returns the text to write and remembers how many lines the card took.
///
/// The cursor rests at the start of the line under the card. Erasing is `CR`, cursor up N
/// (`ESC [ N A`) and erase to the end of the screen (`ESC [ J`). Card lines are never wider than
/// the terminal (the renderer cuts them in terminal cells, down to 20 columns), so each takes
/// exactly one row.
package struct TerminalScreen: Sendable, Equatable {
    /// Rows the card occupies now (0 before the first draw).
    package private(set) var cardRows = 0
    package private(set) var cardLines: [String] = []

    package init() {}

    /// Replaces the card with `lines`.
    package mutating func draw(_ lines: [String]) -> String {
        let text = erase() + lines.map { $0 + "\n" }.joined()
        cardLines = lines
        cardRows = lines.count
        return text
    }

    /// Prints `line` above the card (it scrolls away like ordinary output) and redraws the card.
    package mutating func printAbove(_ line: String) -> String {
        erase() + line + "\n" + cardLines.map { $0 + "\n" }.joined()
    }

    /// Forgets the card drawn before (text was lost on the way to the terminal): the next draw
    /// starts on a fresh line instead of erasing rows that may not be there.
    package mutating func forget() {
        cardRows = 0
    }

    private func erase() -> String {
        guard cardRows > 0 else { return "" }
        return "\r\u{1B}[\(cardRows)A\u{1B}[J"
    }
}
