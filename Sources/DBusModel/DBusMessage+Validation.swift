extension DBusMessage {
    /// Checks headers and body against the D-Bus rules before the message reaches libdbus, which aborts the
    /// process on invalid input instead of returning an error. The error names the offending field.
    package func validate() throws(DBusError) {
        try checkHeaders()
        for (offset, value) in body.enumerated() {
            do {
                try value.validate()
            } catch {
                throw .invalidArgs("argument \(offset) of \(memberDescription): \(error.message)")
            }
        }
    }

    private func checkHeaders() throws(DBusError) {
        // libdbus builds a message with a path or interface that merely starts with the local one, but every
        // receiver, dbus-daemon too, refuses it as corrupted (a prefix test; found by fuzzing).
        if let path {
            guard path.isValid else { throw .invalidArgs("invalid object path '\(path)' in \(memberDescription)") }
            guard !path.rawValue.hasPrefix(Self.localPath) else {
                throw .invalidArgs("the path '\(path)': paths starting \(Self.localPath) are reserved for libdbus")
            }
        }
        if let interface {
            try Self.check(interface, "interface", DBusNames.isValidInterface)
            guard !interface.hasPrefix(Self.localInterface) else {
                throw .invalidArgs(
                    "the interface '\(interface)': names starting \(Self.localInterface) are reserved for libdbus")
            }
        }
        if let member { try Self.check(member, "member", DBusNames.isValidMember) }
        if let destination { try Self.check(destination, "destination", DBusNames.isValidBusName) }
        if let sender { try Self.check(sender, "sender", DBusNames.isValidBusName) }
        if let errorName { try Self.check(errorName, "error name", DBusNames.isValidErrorName) }
        switch type {
        case .methodCall:
            guard path != nil, member != nil else { throw .invalidArgs("a method call needs a path and a member") }
        case .signal:
            guard path != nil, interface != nil, member != nil else {
                throw .invalidArgs("a signal needs a path, an interface and a member")
            }
        case .methodReturn:
            guard let replySerial, replySerial != 0 else {
                throw .invalidArgs("a method return needs a non-zero reply serial")
            }
        case .error:
            guard let replySerial, replySerial != 0, errorName != nil else {
                throw .invalidArgs("an error needs a non-zero reply serial and an error name")
            }
        }
    }

    private static let localPath = "/org/freedesktop/DBus/Local"
    private static let localInterface = "org.freedesktop.DBus.Local"

    private static func check(_ value: String, _ field: String, _ isValid: (String) -> Bool) throws(DBusError) {
        guard isValid(value) else { throw .invalidArgs("invalid \(field) '\(value)'") }
    }
}
