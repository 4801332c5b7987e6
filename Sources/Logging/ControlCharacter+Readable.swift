/// The form for people: text from outside on a card, in an alert, a notification or a task's step.
extension ControlCharacter {
    /// U+200D, the one format character with a use in what people read: it joins pictographs into one emoji.
    package static let zeroWidthJoiner: Unicode.Scalar = "\u{200D}"

    /// `text` unable to drive a terminal or reorder what is read: control characters (ESC, CSI, newlines, …)
    /// and line or paragraph separators become spaces; bidi and format characters (marks, overrides and
    /// isolates, zero-width characters, soft hyphens, tags) are removed, so a title cannot flip the text after
    /// it or hide what it says. The one exception is a zero-width joiner inside an emoji sequence (`👨‍👩‍👧`).
    package static func readable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { ControlCharacter($0) != nil }) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch ControlCharacter(scalar) {
            case .control?, .separator?: scalars.append(" ")
            case .bidi?: continue
            case .format? where scalar != zeroWidthJoiner: continue
            case .format?, nil: scalars.append(scalar)
            }
        }
        let kept = String(scalars)
        guard kept.unicodeScalars.contains(zeroWidthJoiner) else { return kept }
        var cleaned = ""
        for character in kept {
            cleaned.unicodeScalars.append(contentsOf: withoutStrayJoiners(character))
        }
        return cleaned
    }

    /// The character's code points less every zero-width joiner that does not join two emoji:
    /// grapheme clustering keeps what follows a joiner in the same character only after a
    /// pictograph, so a joiner followed there by an emoji is part of an emoji sequence.
    private static func withoutStrayJoiners(_ character: Character) -> [Unicode.Scalar] {
        let scalars = Array(character.unicodeScalars)
        return scalars.indices.compactMap { index in
            guard scalars[index] == zeroWidthJoiner else { return scalars[index] }
            let next = index + 1 < scalars.count ? scalars[index + 1] : nil
            return next.map { $0.properties.isEmoji && !$0.isASCII } == true ? scalars[index] : nil
        }
    }

    /// Whether a task's text may not hold `scalar`: the board refuses control characters (but for `allowed`,
    /// the tab and line breaks of a multiline text) and bidi controls, so no reader of a task is driven or misled
    /// by its text. Separators and the other format characters are stored (an emoji's joiner, a soft hyphen):
    /// people's readers drop them (`readable(_:)`) and logs escape them.
    package static func isRefusedInText(_ scalar: Unicode.Scalar, allowed: Set<Unicode.Scalar> = []) -> Bool {
        switch ControlCharacter(scalar) {
        case .control?: !allowed.contains(scalar)
        case .bidi?: true
        case .separator?, .format?, nil: false
        }
    }
}
