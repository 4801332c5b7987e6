/// Board text made fit for one line a person reads: an alert on the terminal, a notification, a log
/// line. Everything the board sends is hostile, so it is cleaned the way the card cleans it
/// (`CardTextRenderer.clean`: control and separator characters become spaces, format characters such
/// as bidi overrides go), runs of spaces are collapsed, and it is cut to a bounded length.
package enum BoardText {
    /// `text` cleaned, on one line, at most `limit` Unicode scalars long (cut with `...`); nil when
    /// nothing readable is left.
    package static func line(_ text: String?, limit: Int) -> String? {
        guard let text else { return nil }
        let words = CardTextRenderer.clean(text).split(separator: " ")
        guard !words.isEmpty else { return nil }
        let line = words.joined(separator: " ")
        let scalars = line.unicodeScalars
        guard scalars.count > limit else { return line }
        return String(String.UnicodeScalarView(scalars.prefix(max(1, limit - 3)))) + "..."
    }

    /// Text from outside (the board's answers, a USB device's descriptors) for one printed line: as `line`,
    /// empty when nothing readable is left.
    package static func printable(_ text: String, limit: Int = 200) -> String {
        line(text, limit: limit) ?? ""
    }
}
