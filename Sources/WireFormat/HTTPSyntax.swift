/// The few rules of HTTP/1.1's field syntax (RFC 9110 §5) that the board's request parser and the HTTP client's
/// request and response each apply, written once: what a token is, the optional white space around a field value,
/// and a comma-separated list's members.
package enum HTTPSyntax {
    /// `tchar` (§5.6.2): the bytes of a method, a field name or a transfer coding. Inlinable: the board's parser
    /// asks it of every byte of a request's method and field names.
    @inlinable
    package static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default: return false
        }
    }

    /// `value` without the optional white space (spaces and tabs, §5.6.3) around it, which is not part of it.
    package static func withoutOptionalWhitespace(_ value: some StringProtocol) -> String {
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        let bytes = Array(value.utf8)
        guard let first = bytes.firstIndex(where: { !blank($0) }), let last = bytes.lastIndex(where: { !blank($0) })
        else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }

    /// A comma-separated list's members (§5.6.1), each without its white space and lower-cased: the tokens of
    /// `Connection: keep-alive, Upgrade` or `Transfer-Encoding: gzip, chunked`. An empty member stays, as "".
    package static func listMembers(_ value: some StringProtocol) -> [String] {
        value.split(separator: ",").map { withoutOptionalWhitespace($0).lowercased() }
    }
}
