/// A character that acts on whoever shows a text instead of being shown: C0 and C1 controls and DEL
/// (line feed, carriage return, tab, ESC, CSI: they end log lines and drive terminals), line and paragraph
/// separators, and format characters (bidi marks, embeddings, overrides and isolates, zero-width
/// characters, soft hyphens, tags: they reorder or hide the text around them).
///
/// The one classification behind both ways text from outside is made safe: the logs of both daemons
/// and aidenctl's messages write these characters as visible escapes (`escaping(_:)`, nothing lost), the
/// phone's card, alert lines and notifications drop them (`BoardText.clean`, for people to read).
package enum ControlCharacter: Sendable, Equatable {
    /// General category Cc: C0 (U+0000–U+001F, with tab, line feed and carriage return), DEL, C1 (U+0080–U+009F).
    case control
    /// Zl and Zp: U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR.
    case separator
    /// Cf: U+200E/U+200F, U+202A–U+202E, U+2066–U+2069, U+061C, zero-width characters, U+00AD, tags, ….
    case format

    /// The kind of `scalar`, nil for a character that shows as itself.
    package init?(_ scalar: Unicode.Scalar) {
        // Printable ASCII, most of every line, without a table lookup.
        if scalar.value >= 0x20 && scalar.value < 0x7F { return nil }
        switch scalar.properties.generalCategory {
        case .control: self = .control
        case .lineSeparator, .paragraphSeparator: self = .separator
        case .format: self = .format
        default: return nil
        }
    }

    /// `text` with every control character as a visible escape (`\n`, `\r`, `\t`, else `\u{1b}`,
    /// `\u{202e}` in lower-case hex), everything else as it is: one line, and what it said can still be read.
    /// A backslash is kept as it is, so an escape is for reading, not for decoding.
    package static func escaping(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { ControlCharacter($0) != nil }) else { return text }
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard ControlCharacter(scalar) != nil else {
                escaped.append(scalar)
                continue
            }
            let visible =
                switch scalar {
                case "\n": "\\n"
                case "\r": "\\r"
                case "\t": "\\t"
                default: "\\u{\(String(scalar.value, radix: 16))}"
                }
            escaped.append(contentsOf: visible.unicodeScalars)
        }
        return String(escaped)
    }
}
