/// A compact text form close to GVariant's text format (`'text'`, `<variant>`, `{'key': <1>}`, `@as []`), so
/// transcripts of D-Bus traffic read like `busctl` output and compare as plain strings in tests.
extension DBusValue: CustomStringConvertible {
    package var description: String {
        switch self {
        case .byte(let value): "byte 0x" + Self.hex(value)
        case .boolean(let value): value ? "true" : "false"
        case .int16(let value): "int16 \(value)"
        case .uint16(let value): "uint16 \(value)"
        case .int32(let value): "\(value)"
        case .uint32(let value): "uint32 \(value)"
        case .int64(let value): "int64 \(value)"
        case .uint64(let value): "uint64 \(value)"
        case .double(let value): "double \(value)"
        case .string(let value): Self.quoted(value)
        case .objectPath(let value): "objectpath " + Self.quoted(value.rawValue)
        case .signature(let value): "signature " + Self.quoted(value.rawValue)
        case .bytes(let bytes): "bytes 0x" + bytes.map(Self.hex).joined()
        case .array(let element, let items):
            items.isEmpty ? "@a\(element) []" : "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .dictionary(let key, let value, let entries):
            entries.isEmpty
                ? "@a{\(key)\(value)} {}"
                : "{" + entries.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        case .structure(let members):
            "(" + members.map(\.description).joined(separator: ", ") + (members.count == 1 ? ",)" : ")")
        case .variant(let value): "<\(value)>"
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }

    private static func quoted(_ text: String) -> String {
        var result = "'"
        for character in text {
            switch character {
            case "'": result += "\\'"
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            default: result.append(character)
            }
        }
        return result + "'"
    }
}
