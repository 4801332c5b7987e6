/// A character that acts on whoever shows a text instead of being shown: C0 and C1 controls and DEL
/// (line feed, carriage return, tab, ESC, CSI: they end log lines and drive terminals), line and paragraph
/// separators, bidi controls (marks, embeddings, overrides and isolates: they reorder the text around them)
/// and the other format characters (zero-width characters, soft hyphens, tags: they hide text).
///
/// The one rule for text from outside, in a dependency-free core so every target that meets such text uses it.
/// Its uses, each named here or next to this file: the logs of both daemons, STATUS= and aidenctl's messages
/// write these characters as visible escapes (`escaping(_:)`, nothing lost); an error message, a refusal or a
/// log line that quotes a value from outside shows it escaped and bounded (`shown(_:limit:)`); the phone's
/// card, alert lines and notifications and the agent hooks' steps drop them for people to read
/// (`readable(_:)`); the board refuses task text holding a control or bidi character (`isRefusedInText`).
package enum ControlCharacter: Sendable, Equatable {
    /// General category Cc: C0 (U+0000–U+001F, with tab, line feed and carriage return), DEL, C1 (U+0080–U+009F).
    case control
    /// Zl and Zp: U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR.
    case separator
    /// Bidi_Control, all of them Cf: U+061C, U+200E/U+200F, U+202A–U+202E, U+2066–U+2069.
    case bidi
    /// The rest of Cf: zero-width characters (U+200B–U+200D, U+2060, U+FEFF), U+00AD, tags, ….
    case format

    /// The kind of `scalar`, nil for a character that shows as itself.
    package init?(_ scalar: Unicode.Scalar) {
        // Printable ASCII, most of every line, without a table lookup.
        if scalar.value >= 0x20 && scalar.value < 0x7F { return nil }
        switch scalar.properties.generalCategory {
        case .control: self = .control
        case .lineSeparator, .paragraphSeparator: self = .separator
        case .format: self = scalar.properties.isBidiControl ? .bidi : .format
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
            escaped.append(contentsOf: visible(scalar).unicodeScalars)
        }
        return String(escaped)
    }

    /// The escape `escaping(_:)` writes for one control character.
    private static func visible(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": "\\n"
        case "\r": "\\r"
        case "\t": "\\t"
        default: "\\u{\(String(scalar.value, radix: 16))}"
        }
    }
}
