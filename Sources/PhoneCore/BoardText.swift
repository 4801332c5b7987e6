import Logging

/// Board text made fit for a person to read: the card, an alert on the terminal, a notification, a
/// doctor's finding. Everything the board sends is hostile, so it all goes through the one cleaning rule
/// (`clean`); `line` also puts it on one line with runs of spaces collapsed and cuts it to a bounded
/// length. (Log lines are not cleaned but escaped, by the logger, so nothing is lost there.)
package enum BoardText {
    /// Board text must not drive the terminal or reorder what is read (`ControlCharacter`): control
    /// characters (ESC, CSI, newlines, …) and line or paragraph separators become spaces; format characters
    /// (bidi marks, overrides and isolates, zero-width characters, soft hyphens, tags) are removed, so a title
    /// cannot flip the text after it or hide what it says. The one exception is a zero-width joiner
    /// inside an emoji sequence (`👨‍👩‍👧`), which only joins pictographs into one.
    package static func clean(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch ControlCharacter(scalar) {
            case .control?, .separator?: scalars.append(" ")
            case .format? where scalar != TerminalCellWidth.zeroWidthJoiner: continue
            case .format?, nil: scalars.append(scalar)
            }
        }
        let kept = String(scalars)
        guard kept.unicodeScalars.contains(TerminalCellWidth.zeroWidthJoiner) else { return kept }
        var cleaned = ""
        for character in kept {
            cleaned.unicodeScalars.append(contentsOf: withoutStrayJoiners(character))
        }
        return cleaned
    }

    /// `text` cleaned, with runs of spaces collapsed and none at either end: one line, however built.
    package static func oneLine(_ text: String) -> String {
        clean(text).split(separator: " ").joined(separator: " ")
    }

    /// `text` cleaned, on one line, at most `limit` Unicode scalars long (cut with `...`); nil when
    /// nothing readable is left.
    package static func line(_ text: String?, limit: Int) -> String? {
        guard let text else { return nil }
        let line = oneLine(text)
        guard !line.isEmpty else { return nil }
        let scalars = line.unicodeScalars
        guard scalars.count > limit else { return line }
        return String(String.UnicodeScalarView(scalars.prefix(max(1, limit - 3)))) + "..."
    }

    /// Text from outside (the board's answers, a USB device's descriptors) for one printed line: as `line`,
    /// empty when nothing readable is left.
    package static func printable(_ text: String, limit: Int = 200) -> String {
        line(text, limit: limit) ?? ""
    }

    /// The character's code points less every zero-width joiner that does not join two emoji:
    /// grapheme clustering keeps what follows a joiner in the same character only after a
    /// pictograph, so a joiner followed there by an emoji is part of an emoji sequence.
    private static func withoutStrayJoiners(_ character: Character) -> [Unicode.Scalar] {
        let scalars = Array(character.unicodeScalars)
        return scalars.indices.compactMap { index in
            guard scalars[index] == TerminalCellWidth.zeroWidthJoiner else { return scalars[index] }
            let next = index + 1 < scalars.count ? scalars[index + 1] : nil
            return next.map { $0.properties.isEmoji && !$0.isASCII } == true ? scalars[index] : nil
        }
    }
}
