internal import CDBus
import DBusModel

/// Marshalling through libdbus's `DBusMessageIter` API (no variadic calls). Values are validated before they
/// get here: libdbus aborts the process on a type mismatch instead of returning an error.
extension DBusValue {
    /// The largest `ay` libdbus accepts (64 MiB, the specification's array limit).
    static let maximumByteArrayLength = 67_108_864

    func append(to iter: inout DBusMessageIter) throws(DBusError) {
        switch self {
        case .byte(let value): try Self.appendBasic(&iter, AIDEN_DBUS_TYPE_BYTE, value)
        case .boolean(let value): try Self.appendBasic(&iter, AIDEN_DBUS_TYPE_BOOLEAN, dbus_bool_t(value ? 1 : 0))
        case .int16(let value): try Self.appendBasic(&iter, AIDEN_DBUS_TYPE_INT16, value)
        case .uint16(let value): try Self.appendBasic(&iter, AIDEN_DBUS_TYPE_UINT16, value)
        case .int32(let value): try Self.appendBasic(&iter, AIDEN_DBUS_TYPE_INT32, value)
        case .uint32(let value): try Self.appendBasic(&iter, AIDEN_DBUS_TYPE_UINT32, value)
        case .int64(let value): try Self.appendBasic(&iter, AIDEN_DBUS_TYPE_INT64, value)
        case .uint64(let value): try Self.appendBasic(&iter, AIDEN_DBUS_TYPE_UINT64, value)
        case .double(let value): try Self.appendBasic(&iter, AIDEN_DBUS_TYPE_DOUBLE, value)
        case .string(let value): try Self.appendString(&iter, AIDEN_DBUS_TYPE_STRING, value)
        case .objectPath(let value): try Self.appendString(&iter, AIDEN_DBUS_TYPE_OBJECT_PATH, value.rawValue)
        case .signature(let value): try Self.appendString(&iter, AIDEN_DBUS_TYPE_SIGNATURE, value.rawValue)
        case .bytes(let bytes):
            guard bytes.count <= Self.maximumByteArrayLength else {
                throw .invalidArgs("byte array of \(bytes.count) bytes exceeds the D-Bus limit")
            }
            try Self.container(&iter, AIDEN_DBUS_TYPE_ARRAY, "y") { (sub: inout DBusMessageIter) throws(DBusError) in
                guard !bytes.isEmpty else { return }
                let appended = bytes.withUnsafeBufferPointer { buffer in
                    var base = buffer.baseAddress
                    return dbus_message_iter_append_fixed_array(&sub, AIDEN_DBUS_TYPE_BYTE, &base, Int32(buffer.count))
                }
                guard appended != 0 else { throw Self.outOfMemory }
            }
        case .array(let element, let items):
            try Self.container(&iter, AIDEN_DBUS_TYPE_ARRAY, element.signature) {
                (sub: inout DBusMessageIter) throws(DBusError) in
                for item in items { try item.append(to: &sub) }
            }
        case .dictionary(let key, let value, let entries):
            let entrySignature = "{" + key.signature + value.signature + "}"
            try Self.container(&iter, AIDEN_DBUS_TYPE_ARRAY, entrySignature) {
                (sub: inout DBusMessageIter) throws(DBusError) in
                for entry in entries {
                    try Self.container(&sub, AIDEN_DBUS_TYPE_DICT_ENTRY, nil) {
                        (pair: inout DBusMessageIter) throws(DBusError) in
                        try entry.key.append(to: &pair)
                        try entry.value.append(to: &pair)
                    }
                }
            }
        case .structure(let members):
            try Self.container(&iter, AIDEN_DBUS_TYPE_STRUCT, nil) { (sub: inout DBusMessageIter) throws(DBusError) in
                for member in members { try member.append(to: &sub) }
            }
        case .variant(let inner):
            try Self.container(&iter, AIDEN_DBUS_TYPE_VARIANT, inner.type.signature) {
                (sub: inout DBusMessageIter) throws(DBusError) in
                try inner.append(to: &sub)
            }
        }
    }

    /// Reads the value at `iter` (which the caller advances).
    static func read(from iter: inout DBusMessageIter) throws(DBusError) -> DBusValue {
        let code = dbus_message_iter_get_arg_type(&iter)
        switch code {
        case AIDEN_DBUS_TYPE_BYTE: return .byte(readBasic(&iter, UInt8(0)))
        case AIDEN_DBUS_TYPE_BOOLEAN: return .boolean(readBasic(&iter, dbus_bool_t(0)) != 0)
        case AIDEN_DBUS_TYPE_INT16: return .int16(readBasic(&iter, Int16(0)))
        case AIDEN_DBUS_TYPE_UINT16: return .uint16(readBasic(&iter, UInt16(0)))
        case AIDEN_DBUS_TYPE_INT32: return .int32(readBasic(&iter, Int32(0)))
        case AIDEN_DBUS_TYPE_UINT32: return .uint32(readBasic(&iter, UInt32(0)))
        case AIDEN_DBUS_TYPE_INT64: return .int64(readBasic(&iter, Int64(0)))
        case AIDEN_DBUS_TYPE_UINT64: return .uint64(readBasic(&iter, UInt64(0)))
        case AIDEN_DBUS_TYPE_DOUBLE: return .double(readBasic(&iter, Double(0)))
        case AIDEN_DBUS_TYPE_STRING: return .string(readString(&iter))
        case AIDEN_DBUS_TYPE_OBJECT_PATH: return .objectPath(DBusObjectPath(readString(&iter)))
        case AIDEN_DBUS_TYPE_SIGNATURE: return .signature(DBusSignature(readString(&iter)))
        case AIDEN_DBUS_TYPE_ARRAY: return try readArray(&iter)
        case AIDEN_DBUS_TYPE_STRUCT:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .structure(try readAll(&sub))
        case AIDEN_DBUS_TYPE_VARIANT:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .variant(try read(from: &sub))
        case AIDEN_DBUS_TYPE_UNIX_FD:
            throw .invalidArgs("file descriptor arguments ('h') are not supported")
        default:
            throw .invalidArgs("unexpected D-Bus type code \(code)")
        }
    }

    /// Reads every remaining value at `iter`.
    static func readAll(_ iter: inout DBusMessageIter) throws(DBusError) -> [DBusValue] {
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iter) != AIDEN_DBUS_TYPE_INVALID {
            values.append(try read(from: &iter))
            dbus_message_iter_next(&iter)
        }
        return values
    }

    private static func readArray(_ iter: inout DBusMessageIter) throws(DBusError) -> DBusValue {
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &sub)
        if dbus_message_iter_get_element_type(&iter) == AIDEN_DBUS_TYPE_BYTE {
            var base: UnsafePointer<UInt8>?
            var count: Int32 = 0
            withUnsafeMutablePointer(to: &base) { dbus_message_iter_get_fixed_array(&sub, $0, &count) }
            guard let base, count > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeBufferPointer(start: base, count: Int(count))))
        }
        // The element type comes from the signature: an empty array has no item to learn it from.
        let type = try DBusSignature(currentSignature(&iter)).singleType()
        switch type {
        case .dictionary(let key, let value):
            var entries: [DBusDictEntry] = []
            while dbus_message_iter_get_arg_type(&sub) == AIDEN_DBUS_TYPE_DICT_ENTRY {
                var pair = DBusMessageIter()
                dbus_message_iter_recurse(&sub, &pair)
                let entryKey = try read(from: &pair)
                dbus_message_iter_next(&pair)
                let entryValue = try read(from: &pair)
                entries.append(DBusDictEntry(entryKey, entryValue))
                dbus_message_iter_next(&sub)
            }
            return .dictionary(key: key, value: value, entries)
        case .array(let element):
            return .array(element, try readAll(&sub))
        default:
            throw .invalidArgs("array with unexpected signature '\(type)'")
        }
    }

    private static func currentSignature(_ iter: inout DBusMessageIter) -> String {
        guard let raw = dbus_message_iter_get_signature(&iter) else { return "" }
        defer { dbus_free(raw) }
        return String(cString: raw)
    }

    private static func readBasic<T>(_ iter: inout DBusMessageIter, _ initial: T) -> T {
        var value = initial
        withUnsafeMutablePointer(to: &value) { dbus_message_iter_get_basic(&iter, $0) }
        return value
    }

    private static func readString(_ iter: inout DBusMessageIter) -> String {
        var pointer: UnsafePointer<CChar>?
        withUnsafeMutablePointer(to: &pointer) { dbus_message_iter_get_basic(&iter, $0) }
        return pointer.map { String(cString: $0) } ?? ""
    }

    private static func appendBasic<T>(_ iter: inout DBusMessageIter, _ code: Int32, _ value: T) throws(DBusError) {
        var copy = value
        let appended = withUnsafePointer(to: &copy) { dbus_message_iter_append_basic(&iter, code, $0) }
        guard appended != 0 else { throw outOfMemory }
    }

    private static func appendString(_ iter: inout DBusMessageIter, _ code: Int32, _ text: String) throws(DBusError) {
        let appended = text.withCString { cString in
            var pointer: UnsafePointer<CChar>? = cString
            return withUnsafePointer(to: &pointer) { dbus_message_iter_append_basic(&iter, code, $0) }
        }
        guard appended != 0 else { throw outOfMemory }
    }

    /// Opens a container, fills it, closes it (or abandons it when filling fails).
    private static func container(
        _ iter: inout DBusMessageIter, _ code: Int32, _ signature: String?,
        _ fill: (inout DBusMessageIter) throws(DBusError) -> Void
    ) throws(DBusError) {
        var sub = DBusMessageIter()
        let opened: dbus_bool_t
        if let signature {
            opened = signature.withCString { dbus_message_iter_open_container(&iter, code, $0, &sub) }
        } else {
            opened = dbus_message_iter_open_container(&iter, code, nil, &sub)
        }
        guard opened != 0 else { throw outOfMemory }
        do {
            try fill(&sub)
        } catch {
            dbus_message_iter_abandon_container(&iter, &sub)
            throw error
        }
        guard dbus_message_iter_close_container(&iter, &sub) != 0 else { throw outOfMemory }
    }

    private static let outOfMemory = DBusError(
        name: "org.freedesktop.DBus.Error.NoMemory", message: "libdbus is out of memory")
}
