/// JSON string literals (RFC 8259 §7), written by hand where a body is built without an encoder: the board's
/// error bodies and task snapshots, the phone's app-state body and alert record, aidenctl's own error objects.
/// Spelled as the board's encoder (`LiveActivityJSON.makeEncoder()`) spells them: `\b`, `\f`, `\n`, `\r`, `\t`, other
/// control characters as `\u001b`, `/` as it is; so what is written by hand and what it writes are the same bytes.
package enum JSONString {
    /// `value` between quotes, with `"`, `\` and control characters escaped.
    package static func quote(_ value: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.utf8.count + 2)
        append(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `value` quoted as `quote` spells it, as UTF-8, to `bytes`: for a document written into one
    /// buffer. Every byte of a multi-byte character is 0x80 or above, so only ASCII is ever escaped.
    package static func append(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            let escaped: UInt8? =
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): byte
                case 0x08: UInt8(ascii: "b")
                case 0x0C: UInt8(ascii: "f")
                case UInt8(ascii: "\n"): UInt8(ascii: "n")
                case UInt8(ascii: "\r"): UInt8(ascii: "r")
                case UInt8(ascii: "\t"): UInt8(ascii: "t")
                case ..<0x20: UInt8(ascii: "u")
                default: nil
                }
            guard let escaped else {
                bytes.append(byte)
                continue
            }
            bytes.append(UInt8(ascii: "\\"))
            bytes.append(escaped)
            if escaped == UInt8(ascii: "u") {
                bytes.append(contentsOf: "00".utf8)
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0xF)])
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// An object's members in the order the encoder writes them with `.sortedKeys` (by their UTF-8 bytes), each
    /// with its `"name":`, for an object written by hand.
    package static func members<Key: CodingKey>(_ keys: [Key]) -> [(key: Key, prefix: [UInt8])] {
        keys.sorted { $0.stringValue.utf8.lexicographicallyPrecedes($1.stringValue.utf8) }.map { key in
            var prefix: [UInt8] = []
            append(key.stringValue, to: &prefix)
            prefix.append(UInt8(ascii: ":"))
            return (key, prefix)
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
