/// A D-Bus value together with its type.
///
/// Containers carry their element types, so an empty array still knows its signature. Byte arrays have their own
/// case (`bytes`, marshalled as `ay` in one copy): GATT values are byte arrays and must not become arrays of
/// enum cases. A value read from the bus uses `bytes` for every `ay`.
package indirect enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(DBusObjectPath)
    case signature(DBusSignature)
    /// `ay`.
    case bytes([UInt8])
    /// `a<element>`: every item must have type `element`.
    case array(DBusType, [DBusValue])
    /// `a{<key><value>}`: keys of a basic type; entries keep their order (transcripts stay deterministic).
    case dictionary(key: DBusType, value: DBusType, [DBusDictEntry])
    /// `(…)`: at least one member.
    case structure([DBusValue])
    /// `v`: any single value, which carries its own signature on the wire.
    case variant(DBusValue)

    /// This value's complete type.
    package var type: DBusType {
        switch self {
        case .byte: .byte
        case .boolean: .boolean
        case .int16: .int16
        case .uint16: .uint16
        case .int32: .int32
        case .uint32: .uint32
        case .int64: .int64
        case .uint64: .uint64
        case .double: .double
        case .string: .string
        case .objectPath: .objectPath
        case .signature: .signature
        case .bytes: .array(.byte)
        case .array(let element, _): .array(element)
        case .dictionary(let key, let value, _): .dictionary(key: key, value: value)
        case .structure(let members): .structure(members.map(\.type))
        case .variant: .variant
        }
    }

    /// The signature of this one value, e.g. `a{sv}`.
    package var signature: DBusSignature { DBusSignature(type.signature) }
}

/// One key/value pair of a `DBusValue.dictionary`.
package struct DBusDictEntry: Sendable, Hashable {
    package var key: DBusValue
    package var value: DBusValue

    package init(_ key: DBusValue, _ value: DBusValue) {
        self.key = key
        self.value = value
    }
}

extension Array where Element == DBusValue {
    /// The signature of a message body made of these values.
    package var signature: DBusSignature {
        DBusSignature(map(\.type.signature).joined())
    }
}
