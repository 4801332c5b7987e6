/// One complete D-Bus type, the tree behind a signature character string.
///
/// `dictionary` is the whole `a{kv}` type: a dict entry can only appear as an array's element, so modelling it
/// on its own would only allow invalid types.
package indirect enum DBusType: Sendable, Hashable, CustomStringConvertible {
    case byte, boolean, int16, uint16, int32, uint32, int64, uint64, double
    case string, objectPath, signature
    /// `h`: valid in signatures, but this layer does not pass file descriptors (no `DBusValue` carries one).
    case unixFD
    case array(DBusType)
    case dictionary(key: DBusType, value: DBusType)
    case structure([DBusType])
    case variant

    /// The signature characters of this type, e.g. `a{sv}`.
    package var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .array(let element): "a" + element.signature
        case .dictionary(let key, let value): "a{" + key.signature + value.signature + "}"
        case .structure(let members): "(" + members.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }

    package var description: String { signature }

    /// Basic types are the only ones allowed as dictionary keys.
    package var isBasic: Bool {
        switch self {
        case .byte, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double,
            .string, .objectPath, .signature, .unixFD:
            true
        case .array, .dictionary, .structure, .variant:
            false
        }
    }

    /// Checks a type built in code (not parsed): dictionary keys basic, structures non-empty, nesting limits.
    package func validate() throws(DBusError) {
        var parser = DBusSignatureParser(signature)
        _ = try parser.parseAll()
    }
}
