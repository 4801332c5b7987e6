/// Rules for numbers that arrive in query strings (identifiers follow `IdentifierRule`).
enum QueryRules {
    /// A non-negative decimal integer without sign or spaces.
    static func cursor(_ text: String) -> UInt64? {
        guard !text.isEmpty, text.utf8.count <= 20, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return nil
        }
        return UInt64(text)
    }
}
