import Logging

/// Board text made fit for a person to read: the card, an alert on the terminal, a notification, a
/// doctor's finding. Everything the board sends is hostile, so it all goes through the one cleaning rule
/// (`clean`, `ControlCharacter.readable`); `line` also puts it on one line with runs of spaces collapsed and
/// cuts it to a bounded length. (Log lines are not cleaned but escaped, by the logger, so nothing is lost there.)
package enum BoardText {
    /// Board text unable to drive the terminal or reorder what is read (`ControlCharacter.readable`).
    package static func clean(_ text: String) -> String {
        ControlCharacter.readable(text)
    }

    /// `text` cleaned, with runs of spaces collapsed and none at either end: one line, however built.
    package static func oneLine(_ text: String) -> String {
        clean(text).split(separator: " ").joined(separator: " ")
    }

    /// `text` cleaned, on one line, at most `limit` Unicode scalars long (cut between characters with `...`,
    /// `ControlCharacter.bounded`); nil when nothing readable is left.
    package static func line(_ text: String?, limit: Int) -> String? {
        guard let text else { return nil }
        let line = oneLine(text)
        guard !line.isEmpty else { return nil }
        return ControlCharacter.bounded(line, limit: limit, ellipsis: "...")
    }

    /// Text from outside (the board's answers, a USB device's descriptors) for one printed line: as `line`,
    /// empty when nothing readable is left.
    package static func printable(_ text: String, limit: Int = 200) -> String {
        line(text, limit: limit) ?? ""
    }
}
