/// An IPv4 or IPv6 address literal, parsed strictly.
///
/// Access decisions (403 or not) depend on this parser, so it accepts only canonical forms:
/// dotted-quad IPv4 without leading zeros (no octal ambiguity), and RFC 4291 IPv6 text with
/// at most one `::` and an optional dotted-quad tail. Zone ids (`fe80::1%eth0`) are rejected.
package enum IPAddress: Hashable, Sendable {
    case v4(UInt32)
    case v6(high: UInt64, low: UInt64)

    /// Parses an address literal; nil for anything that is not exactly one address.
    package init?(_ text: some StringProtocol) {
        // One concrete type from here on: the parsers run on every phone request (the Host header), and
        // generic StringProtocol code called across the module boundary is not specialized.
        let text = Substring(text)
        if let v4 = IPAddress.parseIPv4(text.utf8) {
            self = .v4(v4)
        } else if let v6 = IPAddress.parseIPv6(text) {
            self = v6
        } else {
            return nil
        }
    }

    package init(v4 a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) {
        self = .v4(UInt32(a) << 24 | UInt32(b) << 16 | UInt32(c) << 8 | UInt32(d))
    }

    /// Network-order bytes: 4 for IPv4, 16 for IPv6.
    package init?(bytes: [UInt8]) {
        switch bytes.count {
        case 4:
            self = .v4(bytes.reduce(0) { $0 << 8 | UInt32($1) })
        case 16:
            let high = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let low = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            self = .v6(high: high, low: low)
        default:
            return nil
        }
    }

    package var isIPv6: Bool {
        if case .v6 = self { return true }
        return false
    }

    /// The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`), else nil.
    package var mappedIPv4: IPAddress? {
        guard case let .v6(high, low) = self, high == 0, low >> 32 == 0xffff else { return nil }
        return .v4(UInt32(truncatingIfNeeded: low))
    }

    /// The address access rules should judge: IPv4-mapped IPv6 peers count as their IPv4 address.
    package var unmapped: IPAddress { mappedIPv4 ?? self }

    /// 127.0.0.0/8 or ::1 (also through an IPv4 mapping).
    package var isLoopback: Bool {
        switch unmapped {
        case let .v4(value): return value >> 24 == 127
        case let .v6(high, low): return high == 0 && low == 1
        }
    }

    /// The unspecified address (0.0.0.0 or ::), which means "every interface" in a listen address.
    package var isUnspecified: Bool {
        switch self {
        case let .v4(value): return value == 0
        case let .v6(high, low): return high == 0 && low == 0
        }
    }

    /// Whether `text` is an IPv4 literal in canonical form (then its `description` is `text` itself).
    package static func isCanonicalIPv4(_ text: Substring) -> Bool {
        parseIPv4(text.utf8) != nil
    }

    /// Dotted-quad IPv4 in one pass over the bytes: four decimal octets of one to three digits, no leading
    /// zero (`010` could mean 8 to other parsers), each at most 255.
    static func parseIPv4(_ bytes: Substring.UTF8View) -> UInt32? {
        var value: UInt32 = 0
        var octet: UInt32 = 0
        var digits = 0
        var dots = 0
        var leadingZero = false
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if digits == 1 && leadingZero { return nil }
                if digits == 0 { leadingZero = byte == UInt8(ascii: "0") }
                digits += 1
                octet = octet * 10 + UInt32(byte &- UInt8(ascii: "0"))
                guard octet <= 255 else { return nil }
            case UInt8(ascii: "."):
                guard digits > 0, dots < 3 else { return nil }
                value = value << 8 | octet
                octet = 0
                digits = 0
                dots += 1
            default:
                return nil
            }
        }
        guard dots == 3, digits > 0 else { return nil }
        return value << 8 | octet
    }

    private static func parseIPv6(_ text: Substring) -> IPAddress? {
        guard text.contains(":"), text.count <= 45 else { return nil }
        var head: [UInt16] = []
        var tail: [UInt16] = []
        let halves = String(text).split(separator: "::", maxSplits: 2, omittingEmptySubsequences: false)
            .map { String($0) }
        let compressed: Bool
        switch halves.count {
        case 1:
            compressed = false
            guard let groups = parseGroups(halves[0], allowIPv4Tail: true) else { return nil }
            head = groups
        case 2:
            compressed = true
            guard let first = parseGroups(halves[0], allowIPv4Tail: false),
                let second = parseGroups(halves[1], allowIPv4Tail: true)
            else { return nil }
            head = first
            tail = second
        default:
            return nil
        }
        let total = head.count + tail.count
        if compressed {
            guard total <= 7 else { return nil }
        } else {
            guard total == 8 else { return nil }
        }
        let groups = head + Array(repeating: 0, count: 8 - total) + tail
        let high = groups[0..<4].reduce(UInt64(0)) { $0 << 16 | UInt64($1) }
        let low = groups[4..<8].reduce(UInt64(0)) { $0 << 16 | UInt64($1) }
        return .v6(high: high, low: low)
    }

    /// Colon-separated hex groups; an empty string is zero groups (one side of `::`).
    private static func parseGroups(_ text: String, allowIPv4Tail: Bool) -> [UInt16]? {
        if text.isEmpty { return [] }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        var groups: [UInt16] = []
        for (index, part) in parts.enumerated() {
            if index == parts.count - 1, allowIPv4Tail, part.contains(".") {
                guard let v4 = parseIPv4(part.utf8) else { return nil }
                groups.append(UInt16(v4 >> 16))
                groups.append(UInt16(v4 & 0xffff))
                continue
            }
            guard (1...4).contains(part.count), part.allSatisfy(\.isHexDigit), let group = UInt16(part, radix: 16)
            else { return nil }
            groups.append(group)
        }
        return groups
    }
}
