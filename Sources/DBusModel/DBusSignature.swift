/// A D-Bus signature: zero or more complete types, e.g. `sa{sv}` for a method's arguments.
///
/// Like `DBusObjectPath`, a literal is not checked when written; `types()` and `isValid` check it, and every
/// signature is checked before it reaches libdbus.
package struct DBusSignature: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    package let rawValue: String

    /// Wraps `rawValue` without checking it.
    package init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    package init(stringLiteral value: String) {
        self.init(value)
    }

    package init(validating rawValue: String) throws(DBusError) {
        self.init(rawValue)
        _ = try types()
    }

    package init(_ types: [DBusType]) {
        self.init(types.map(\.signature).joined())
    }

    package static let empty = DBusSignature("")

    package var description: String { rawValue }

    package var isValid: Bool {
        do {
            _ = try types()
            return true
        } catch {
            return false
        }
    }

    /// The complete types this signature is made of; throws `InvalidSignature` naming the offending position.
    package func types() throws(DBusError) -> [DBusType] {
        var parser = DBusSignatureParser(rawValue)
        return try parser.parseAll()
    }

    /// The single complete type this signature must hold (a property's or a variant's type).
    package func singleType() throws(DBusError) -> DBusType {
        let parsed = try types()
        guard parsed.count == 1, let only = parsed.first else {
            throw .invalidSignature("signature '\(rawValue)' must be exactly one complete type, has \(parsed.count)")
        }
        return only
    }
}

/// Parses signature strings by the D-Bus specification's rules (the same ones `dbus_signature_validate` applies).
struct DBusSignatureParser {
    /// The specification's limits: 255 bytes, 32 nested arrays, 32 nested structures (dict entries count).
    static let maximumLength = 255
    static let maximumArrayDepth = 32
    static let maximumStructDepth = 32

    private let text: String
    private let bytes: [UInt8]
    private var index = 0
    private var arrayDepth = 0
    private var structDepth = 0

    init(_ text: String) {
        self.text = text
        self.bytes = Array(text.utf8)
    }

    mutating func parseAll() throws(DBusError) -> [DBusType] {
        guard bytes.count <= Self.maximumLength else {
            throw failure("is \(bytes.count) bytes long, the limit is \(Self.maximumLength)")
        }
        var result: [DBusType] = []
        while index < bytes.count {
            result.append(try parseOne())
        }
        return result
    }

    private mutating func parseOne() throws(DBusError) -> DBusType {
        guard index < bytes.count else { throw failure("ends where a type is expected") }
        let byte = bytes[index]
        index += 1
        if let basic = Self.basicType(byte) { return basic }
        switch byte {
        case UInt8(ascii: "v"):
            return .variant
        case UInt8(ascii: "a"):
            return try parseArray()
        case UInt8(ascii: "("):
            return try parseStructure()
        case UInt8(ascii: "{"):
            throw failure("has a dict entry at offset \(index - 1) outside an array")
        default:
            throw failure("has the unknown type code '\(Self.character(byte))' at offset \(index - 1)")
        }
    }

    private mutating func parseArray() throws(DBusError) -> DBusType {
        arrayDepth += 1
        defer { arrayDepth -= 1 }
        guard arrayDepth <= Self.maximumArrayDepth else {
            throw failure("nests arrays deeper than \(Self.maximumArrayDepth)")
        }
        guard index < bytes.count else { throw failure("ends with an array that has no element type") }
        if bytes[index] == UInt8(ascii: "{") {
            index += 1
            return try parseDictEntry()
        }
        return .array(try parseOne())
    }

    private mutating func parseDictEntry() throws(DBusError) -> DBusType {
        structDepth += 1
        defer { structDepth -= 1 }
        guard structDepth <= Self.maximumStructDepth else {
            throw failure("nests structures deeper than \(Self.maximumStructDepth)")
        }
        let keyOffset = index
        let key = try parseOne()
        guard key.isBasic else {
            throw failure("has a dictionary key at offset \(keyOffset) that is not a basic type")
        }
        guard index < bytes.count, bytes[index] != UInt8(ascii: "}") else {
            throw failure("has a dict entry without a value type")
        }
        let value = try parseOne()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "}") else {
            throw failure("has a dict entry with more than a key and a value, or no closing '}'")
        }
        index += 1
        return .dictionary(key: key, value: value)
    }

    private mutating func parseStructure() throws(DBusError) -> DBusType {
        structDepth += 1
        defer { structDepth -= 1 }
        guard structDepth <= Self.maximumStructDepth else {
            throw failure("nests structures deeper than \(Self.maximumStructDepth)")
        }
        var members: [DBusType] = []
        while true {
            guard index < bytes.count else { throw failure("has a structure without a closing ')'") }
            if bytes[index] == UInt8(ascii: ")") {
                index += 1
                break
            }
            members.append(try parseOne())
        }
        guard !members.isEmpty else { throw failure("has an empty structure '()'") }
        return .structure(members)
    }

    private func failure(_ what: String) -> DBusError {
        .invalidSignature("signature '\(text)' \(what)")
    }

    private static func character(_ byte: UInt8) -> String {
        (32..<127).contains(byte) ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16)
    }

    private static func basicType(_ byte: UInt8) -> DBusType? {
        switch byte {
        case UInt8(ascii: "y"): .byte
        case UInt8(ascii: "b"): .boolean
        case UInt8(ascii: "n"): .int16
        case UInt8(ascii: "q"): .uint16
        case UInt8(ascii: "i"): .int32
        case UInt8(ascii: "u"): .uint32
        case UInt8(ascii: "x"): .int64
        case UInt8(ascii: "t"): .uint64
        case UInt8(ascii: "d"): .double
        case UInt8(ascii: "s"): .string
        case UInt8(ascii: "o"): .objectPath
        case UInt8(ascii: "g"): .signature
        case UInt8(ascii: "h"): .unixFD
        default: nil
        }
    }
}
