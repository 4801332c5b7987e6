/// Optional accessors: nil when the value has another type. Decoding code uses them after the message's
/// signature was checked, so a nil there means "absent", not "malformed".
extension DBusValue {
    package var byteValue: UInt8? {
        if case .byte(let value) = self { value } else { nil }
    }

    package var boolValue: Bool? {
        if case .boolean(let value) = self { value } else { nil }
    }

    package var int16Value: Int16? {
        if case .int16(let value) = self { value } else { nil }
    }

    package var uint16Value: UInt16? {
        if case .uint16(let value) = self { value } else { nil }
    }

    package var int32Value: Int32? {
        if case .int32(let value) = self { value } else { nil }
    }

    package var uint32Value: UInt32? {
        if case .uint32(let value) = self { value } else { nil }
    }

    package var int64Value: Int64? {
        if case .int64(let value) = self { value } else { nil }
    }

    package var uint64Value: UInt64? {
        if case .uint64(let value) = self { value } else { nil }
    }

    package var doubleValue: Double? {
        if case .double(let value) = self { value } else { nil }
    }

    package var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    package var objectPathValue: DBusObjectPath? {
        if case .objectPath(let value) = self { value } else { nil }
    }

    package var signatureValue: DBusSignature? {
        if case .signature(let value) = self { value } else { nil }
    }

    /// The bytes of an `ay`, whether it is held as `.bytes` or as an `.array` of `.byte`.
    package var bytesValue: [UInt8]? {
        switch self {
        case .bytes(let bytes):
            return bytes
        case .array(.byte, let items):
            var bytes: [UInt8] = []
            bytes.reserveCapacity(items.count)
            for item in items {
                guard case .byte(let byte) = item else { return nil }
                bytes.append(byte)
            }
            return bytes
        default:
            return nil
        }
    }

    /// The items of any array (`ay` gives `.byte` items).
    package var arrayItems: [DBusValue]? {
        switch self {
        case .array(_, let items): items
        case .bytes(let bytes): bytes.map(DBusValue.byte)
        default: nil
        }
    }

    /// The strings of an `as`.
    package var stringArray: [String]? {
        guard case .array(.string, let items) = self else { return nil }
        return items.compactMap(\.stringValue)
    }

    /// The paths of an `ao`.
    package var objectPathArray: [DBusObjectPath]? {
        guard case .array(.objectPath, let items) = self else { return nil }
        return items.compactMap(\.objectPathValue)
    }

    package var structureMembers: [DBusValue]? {
        if case .structure(let members) = self { members } else { nil }
    }

    /// The content of a variant.
    package var variantValue: DBusValue? {
        if case .variant(let value) = self { value } else { nil }
    }

    /// A variant's content, or the value itself when it is no variant (property values arrive in variants).
    package var unwrappingVariants: DBusValue {
        var value = self
        while case .variant(let inner) = value { value = inner }
        return value
    }
}

extension DBusValue {
    /// Builds an `as`.
    package static func strings(_ strings: [String]) -> DBusValue {
        .array(.string, strings.map(DBusValue.string))
    }

    /// Builds an `ao`.
    package static func objectPaths(_ paths: [DBusObjectPath]) -> DBusValue {
        .array(.objectPath, paths.map(DBusValue.objectPath))
    }
}
