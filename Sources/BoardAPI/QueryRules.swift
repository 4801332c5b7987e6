/// Rules for identifiers and numbers that arrive in query strings and small bodies.
enum QueryRules {
    static let identifierRule = "must be 1 to 128 characters from A-Z a-z 0-9 . _ : -"

    static func isValidIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 128
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2E || byte == 0x5F || byte == 0x3A || byte == 0x2D
            }
    }

    /// A non-negative decimal integer without sign or spaces.
    static func cursor(_ text: String) -> UInt64? {
        guard !text.isEmpty, text.utf8.count <= 20, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return nil
        }
        return UInt64(text)
    }
}
