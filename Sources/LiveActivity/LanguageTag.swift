/// The `locale` rule (docs/protocol.md §4.2): empty, or a BCP 47 language tag in its common shape: a primary
/// language subtag of 2–8 letters, then subtags of 1–8 letters or digits, joined by hyphens, at most 35
/// characters (RFC 5646's advice for what a reader must hold). Not checked against the registry: a phone that
/// does not know a tag falls back to its own language; the rule only keeps the text a tag can be.
package enum LanguageTag {
    package static let maxLength = 35

    package static let expectation =
        "must be empty or a BCP 47 language tag such as \"en-US\" (letters, digits and hyphens, at most "
        + "\(maxLength) characters)"

    package static func isValid(_ text: String) -> Bool {
        if text.isEmpty { return true }
        guard text.unicodeScalars.count <= maxLength else { return false }
        let subtags = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let primary = subtags.first, (2...8).contains(primary.count),
            primary.unicodeScalars.allSatisfy(isLetter)
        else { return false }
        return subtags.dropFirst().allSatisfy { subtag in
            (1...8).contains(subtag.count) && subtag.unicodeScalars.allSatisfy { isLetter($0) || isDigit($0) }
        }
    }

    /// A letter, a digit or a hyphen: what a tag is made of.
    package static func isTagCharacter(_ scalar: Unicode.Scalar) -> Bool {
        isLetter(scalar) || isDigit(scalar) || scalar == "-"
    }

    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }
}
