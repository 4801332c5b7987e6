/// The bounded forms: text from outside quoted in a message must neither act on its reader nor flood it.
extension ControlCharacter {
    /// How many Unicode scalars of a value from outside a message quotes unless it says otherwise.
    package static let shownLimit = 200

    /// Untrusted text for a log line, an error message or a terminal: every control character escaped once
    /// (as `escaping(_:)` writes it), at most `limit` Unicode scalars with the `…` that says it was cut. The cut
    /// falls between characters (grapheme clusters), so it never splits an escape, a scalar, or a letter from
    /// its combining marks.
    package static func shown(_ text: String, limit: Int = shownLimit) -> String {
        cut(
            text.lazy.map { character in
                character.unicodeScalars.contains { ControlCharacter($0) != nil }
                    ? escaping(String(character)) : String(character)
            }, limit: limit, ellipsis: "…")
    }

    /// `text` if it is at most `limit` Unicode scalars long (the unit the board's limits count), else its longest
    /// run of whole characters that leaves room for `ellipsis`, then `ellipsis`: never more than `limit` scalars,
    /// never a split grapheme cluster. (The card cuts with `...`: its width is the same in every terminal.)
    package static func bounded(_ text: String, limit: Int, ellipsis: String = "…") -> String {
        guard text.unicodeScalars.count > limit else { return text }
        return cut(text.lazy.map(String.init), limit: limit, ellipsis: ellipsis)
    }

    /// The pieces joined while they fit in `limit` scalars; when they do not, the longest run of them that fits
    /// with `ellipsis`, then `ellipsis`.
    private static func cut(_ pieces: some Sequence<String>, limit: Int, ellipsis: String) -> String {
        let mark = ellipsis.unicodeScalars.count <= limit ? ellipsis : ""
        let room = limit - mark.unicodeScalars.count
        var kept = ""
        var count = 0
        var fitted: String?
        for piece in pieces {
            let length = piece.unicodeScalars.count
            if fitted == nil && count + length > room { fitted = kept }
            if count + length > limit { return (fitted ?? kept) + mark }
            kept += piece
            count += length
        }
        return kept
    }
}
