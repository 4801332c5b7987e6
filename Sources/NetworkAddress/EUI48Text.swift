/// The text of a 48-bit address, Bluetooth's or Ethernet's: exactly six pairs of ASCII hex digits with one
/// separator between them (17 bytes), either case. The one reader of both, so a Bluetooth address and the USB
/// link's MAC addresses follow the same rule: no sign (`UInt8("+F", radix: 16)` reads 15), no fullwidth or other
/// non-ASCII digit (`Character.isHexDigit` takes them), no whitespace, no other length.
package enum EUI48Text {
    /// The six bytes, most significant first; nil for anything else.
    package static func bytes(_ utf8: some Collection<UInt8>, separator: UInt8) -> [UInt8]? {
        let text = Array(utf8)
        guard text.count == 17 else { return nil }
        var bytes: [UInt8] = []
        for group in 0..<6 {
            let start = group * 3
            if group > 0, text[start - 1] != separator { return nil }
            guard let high = digitValue(text[start]), let low = digitValue(text[start + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// 0…15 for an ASCII hex digit, either case; nil for every other byte.
    private static func digitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
