extension IPAddress: CustomStringConvertible {
    /// Canonical text (RFC 5952 for IPv6: lower case, longest zero run compressed, mapped IPv4 dotted).
    package var description: String {
        switch self {
        case let .v4(value):
            return IPAddress.dottedQuad(value)
        case let .v6(high, low):
            if let mapped = mappedIPv4, case let .v4(value) = mapped {
                return "::ffff:" + IPAddress.dottedQuad(value)
            }
            let groups = (0..<8).map { index -> UInt16 in
                let word = index < 4 ? high : low
                return UInt16(truncatingIfNeeded: word >> (UInt64(3 - index % 4) * 16))
            }
            return IPAddress.compress(groups)
        }
    }

    /// The text form used inside URLs and `Host` headers: IPv6 in brackets.
    package var uriHost: String { isIPv6 ? "[\(description)]" : description }

    /// Network-order bytes: 4 for IPv4, 16 for IPv6.
    package var bytes: [UInt8] {
        switch self {
        case let .v4(value):
            return (0..<4).map { UInt8(truncatingIfNeeded: value >> (UInt32(3 - $0) * 8)) }
        case let .v6(high, low):
            return (0..<16).map { index in
                let word = index < 8 ? high : low
                return UInt8(truncatingIfNeeded: word >> (UInt64(7 - index % 8) * 8))
            }
        }
    }

    private static func dottedQuad(_ value: UInt32) -> String {
        "\(value >> 24).\(value >> 16 & 0xff).\(value >> 8 & 0xff).\(value & 0xff)"
    }

    private static func compress(_ groups: [UInt16]) -> String {
        // Longest run of two or more zero groups, first one on ties (RFC 5952 §4.2).
        var best: Range<Int>? = nil
        var index = 0
        while index < groups.count {
            guard groups[index] == 0 else { index += 1; continue }
            var end = index
            while end < groups.count, groups[end] == 0 { end += 1 }
            if end - index >= 2, end - index > (best?.count ?? 0) { best = index..<end }
            index = end
        }
        let hex = groups.map { String($0, radix: 16) }
        guard let run = best else { return hex.joined(separator: ":") }
        return hex[..<run.lowerBound].joined(separator: ":") + "::" + hex[run.upperBound...].joined(separator: ":")
    }
}
