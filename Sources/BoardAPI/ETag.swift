/// Conditional requests: `If-None-Match` against the answer's entity tag (RFC 9110 §13.1.2).
enum ETag {
    /// Whether an `If-None-Match` header matches `tag` (weak comparison, lists and `*` allowed).
    static func matches(ifNoneMatch header: String?, tag: String) -> Bool {
        guard let header else { return false }
        let candidates = header.split(separator: ",").map { $0.trimmingSpaces() }
        return candidates.contains { candidate in
            candidate == "*" || opaque(candidate) == opaque(Substring(tag))
        }
    }

    /// A content-derived tag (FNV-1a 64) for answers that change without a store revision (`/status`).
    static func digest(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return "\"h\(String(hash, radix: 16))\""
    }

    private static func opaque(_ tag: Substring) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
    }
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var result = self
        while result.first == " " || result.first == "\t" { result = result.dropFirst() }
        while result.last == " " || result.last == "\t" { result = result.dropLast() }
        return result
    }
}
