extension DBusValue {
    /// The specification's limit on nested containers in a message body (arrays, structures, dict entries and
    /// variants together). dbus-daemon disconnects a client that sends a deeper message.
    static let maximumTotalDepth = 64

    /// Checks what libdbus would otherwise abort the process on: items that do not match their array's element
    /// type, non-basic dictionary keys, empty structures, invalid object paths and signatures, strings holding
    /// NUL, and nesting beyond the specification's limits.
    package func validate() throws(DBusError) {
        var depth = Depth()
        try validate(depth: &depth)
    }

    /// Whether this value has type `expected` (array items and nested values are checked by `validate`).
    package func hasType(_ expected: DBusType) -> Bool {
        switch (self, expected) {
        case (.byte, .byte), (.boolean, .boolean), (.int16, .int16), (.uint16, .uint16), (.int32, .int32),
            (.uint32, .uint32), (.int64, .int64), (.uint64, .uint64), (.double, .double), (.string, .string),
            (.objectPath, .objectPath), (.signature, .signature), (.variant, .variant), (.bytes, .array(.byte)):
            return true
        case (.array(let element, _), .array(let expectedElement)):
            return element == expectedElement
        case (.dictionary(let key, let value, _), .dictionary(let expectedKey, let expectedValue)):
            return key == expectedKey && value == expectedValue
        case (.structure(let members), .structure(let expectedMembers)):
            return members.count == expectedMembers.count
                && zip(members, expectedMembers).allSatisfy { $0.hasType($1) }
        default:
            return false
        }
    }

    private struct Depth {
        var arrays = 0
        var structs = 0
        var total = 0
    }

    private func validate(depth: inout Depth) throws(DBusError) {
        switch self {
        case .byte, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double:
            return
        case .bytes:
            try nested(&depth, array: true) { (_: inout Depth) throws(DBusError) in }
        case .string(let text):
            guard !text.utf8.contains(0) else { throw .invalidArgs("string value contains a NUL character") }
        case .objectPath(let path):
            guard path.isValid else { throw .invalidArgs("invalid object path value '\(path)'") }
        case .signature(let signature):
            _ = try signature.types()
        case .array(let element, let items):
            try DBusType.array(element).validate()
            try nested(&depth, array: true) { (depth: inout Depth) throws(DBusError) in
                for (offset, item) in items.enumerated() {
                    guard item.hasType(element) else {
                        throw .invalidArgs(
                            "array of '\(element)' holds an item of type '\(item.type)' at index \(offset)")
                    }
                    try item.validate(depth: &depth)
                }
            }
        case .dictionary(let key, let value, let entries):
            try DBusType.dictionary(key: key, value: value).validate()
            try nested(&depth, array: true) { (depth: inout Depth) throws(DBusError) in
                try nested(&depth, array: false) { (depth: inout Depth) throws(DBusError) in
                    for entry in entries {
                        guard entry.key.hasType(key), entry.value.hasType(value) else {
                            throw .invalidArgs(
                                "dictionary 'a{\(key)\(value)}' holds an entry of types "
                                    + "'\(entry.key.type)' => '\(entry.value.type)'")
                        }
                        try entry.key.validate(depth: &depth)
                        try entry.value.validate(depth: &depth)
                    }
                }
            }
        case .structure(let members):
            guard !members.isEmpty else { throw .invalidArgs("a structure needs at least one member") }
            try nested(&depth, array: false) { (depth: inout Depth) throws(DBusError) in
                for member in members { try member.validate(depth: &depth) }
            }
        case .variant(let inner):
            depth.total += 1
            defer { depth.total -= 1 }
            guard depth.total <= Self.maximumTotalDepth else { throw tooDeep() }
            // A variant's content starts a new signature: array and structure depths restart there.
            var inside = Depth(arrays: 0, structs: 0, total: depth.total)
            try inner.validate(depth: &inside)
        }
    }

    private func nested(
        _ depth: inout Depth, array: Bool, _ body: (inout Depth) throws(DBusError) -> Void
    ) throws(DBusError) {
        if array { depth.arrays += 1 } else { depth.structs += 1 }
        depth.total += 1
        defer {
            if array { depth.arrays -= 1 } else { depth.structs -= 1 }
            depth.total -= 1
        }
        guard depth.arrays <= DBusSignatureParser.maximumArrayDepth,
            depth.structs <= DBusSignatureParser.maximumStructDepth,
            depth.total <= Self.maximumTotalDepth
        else { throw tooDeep() }
        try body(&depth)
    }

    private func tooDeep() -> DBusError {
        .invalidArgs(
            "value nests containers too deeply (limits: 32 arrays, 32 structures, \(Self.maximumTotalDepth) in all)")
    }
}
