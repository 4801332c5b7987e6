internal import CDBus
import DBusModel

extension DBusMessage {
    /// Builds a libdbus message holding one reference the caller must release with `dbus_message_unref`.
    /// Validates first (libdbus aborts on invalid input). `serial` is only for tests that go to wire bytes:
    /// a connection assigns serials itself.
    func makeLibDBusMessage(serial: UInt32 = 0) throws(DBusError) -> OpaquePointer {
        try validate()
        guard let message = createLibDBusMessage() else {
            throw DBusError(name: "org.freedesktop.DBus.Error.NoMemory", message: "libdbus could not create a message")
        }
        do {
            try setOptionalHeaders(message, serial: serial)
            var iter = DBusMessageIter()
            dbus_message_iter_init_append(message, &iter)
            for value in body { try value.append(to: &iter) }
        } catch {
            dbus_message_unref(message)
            throw error
        }
        return message
    }

    /// Reads a libdbus message (headers and body); the caller keeps its reference.
    /// Throws `InvalidArgs` for a body this layer cannot represent (file descriptors), and for a message type
    /// the specification does not define: libdbus parses those (receivers must ignore them), and read as a
    /// method call they would be one without a path or member (found by fuzzing).
    init(libdbus message: OpaquePointer) throws(DBusError) {
        let code = dbus_message_get_type(message)
        guard
            [
                DBUS_MESSAGE_TYPE_METHOD_CALL, DBUS_MESSAGE_TYPE_METHOD_RETURN, DBUS_MESSAGE_TYPE_ERROR,
                DBUS_MESSAGE_TYPE_SIGNAL,
            ].contains(code)
        else { throw .invalidArgs("message type \(code) is not defined by the specification; it is ignored") }
        self = Self.headers(of: message)
        var iter = DBusMessageIter()
        if dbus_message_iter_init(message, &iter) != 0 {
            body = try DBusValue.readAll(&iter)
        }
    }

    /// The headers of a libdbus message, with an empty body: enough to answer a call whose body is unreadable.
    static func headers(of message: OpaquePointer) -> DBusMessage {
        let type: MessageType =
            switch dbus_message_get_type(message) {
            case DBUS_MESSAGE_TYPE_METHOD_RETURN: .methodReturn
            case DBUS_MESSAGE_TYPE_ERROR: .error
            case DBUS_MESSAGE_TYPE_SIGNAL: .signal
            default: .methodCall
            }
        let replySerial = dbus_message_get_reply_serial(message)
        return DBusMessage(
            type: type,
            path: dbus_message_get_path(message).map { DBusObjectPath(String(cString: $0)) },
            interface: dbus_message_get_interface(message).map { String(cString: $0) },
            member: dbus_message_get_member(message).map { String(cString: $0) },
            destination: dbus_message_get_destination(message).map { String(cString: $0) },
            sender: dbus_message_get_sender(message).map { String(cString: $0) },
            serial: dbus_message_get_serial(message),
            replySerial: replySerial == 0 ? nil : replySerial,
            errorName: dbus_message_get_error_name(message).map { String(cString: $0) },
            noReplyExpected: dbus_message_get_no_reply(message) != 0)
    }

    /// Builds the libdbus message and reads it back: what a peer's handler would see, without a bus.
    package func roundTrippedThroughLibDBus() throws(DBusModel.DBusError) -> DBusMessage {
        let message = try makeLibDBusMessage()
        defer { dbus_message_unref(message) }
        return try DBusMessage(libdbus: message)
    }

    /// The message in D-Bus wire format (what travels on the socket), via `dbus_message_marshal`.
    package func wireBytes(serial: UInt32) throws(DBusModel.DBusError) -> [UInt8] {
        guard serial != 0 else { throw .invalidArgs("a message on the wire needs a non-zero serial") }
        let message = try makeLibDBusMessage(serial: serial)
        defer { dbus_message_unref(message) }
        var buffer: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(message, &buffer, &length) != 0, let buffer else {
            throw .failed("libdbus could not marshal the message")
        }
        defer { dbus_free(buffer) }
        return buffer.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
            Array(UnsafeBufferPointer(start: $0, count: Int(length)))
        }
    }

    /// Parses wire-format bytes with `dbus_message_demarshal`, which validates them as a receiver would.
    package init(wireBytes bytes: [UInt8]) throws(DBusModel.DBusError) {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let parsed = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                dbus_message_demarshal(chars.baseAddress, Int32(chars.count), &error)
            }
        }
        guard let parsed else { throw DBusError(libdbus: error, fallback: "libdbus rejected the message bytes") }
        defer { dbus_message_unref(parsed) }
        try self.init(libdbus: parsed)
    }

    private func createLibDBusMessage() -> OpaquePointer? {
        switch type {
        case .methodCall:
            guard let path, let member else { return nil }
            return Self.withOptionalCString(destination) { destination in
                Self.withOptionalCString(interface) { interface in
                    dbus_message_new_method_call(destination, path.rawValue, interface, member)
                }
            }
        case .signal:
            guard let path, let interface, let member else { return nil }
            return dbus_message_new_signal(path.rawValue, interface, member)
        case .methodReturn:
            return dbus_message_new(DBUS_MESSAGE_TYPE_METHOD_RETURN)
        case .error:
            return dbus_message_new(DBUS_MESSAGE_TYPE_ERROR)
        }
    }

    private func setOptionalHeaders(_ message: OpaquePointer, serial: UInt32) throws(DBusError) {
        var ok = true
        if type == .methodReturn || type == .error, let replySerial {
            ok = ok && dbus_message_set_reply_serial(message, replySerial) != 0
        }
        if type == .error, let errorName { ok = ok && dbus_message_set_error_name(message, errorName) != 0 }
        if type != .methodCall, let destination { ok = ok && dbus_message_set_destination(message, destination) != 0 }
        if type != .methodCall && type != .signal {
            if let path { ok = ok && dbus_message_set_path(message, path.rawValue) != 0 }
            if let interface { ok = ok && dbus_message_set_interface(message, interface) != 0 }
            if let member { ok = ok && dbus_message_set_member(message, member) != 0 }
        }
        if let sender { ok = ok && dbus_message_set_sender(message, sender) != 0 }
        if noReplyExpected { dbus_message_set_no_reply(message, 1) }
        if serial != 0 { dbus_message_set_serial(message, serial) }
        guard ok else { throw DBusError(name: "org.freedesktop.DBus.Error.NoMemory", message: "setting headers") }
    }

    private static func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
        guard let text else { return body(nil) }
        return text.withCString { body($0) }
    }
}

extension DBusError {
    /// Copies a filled libdbus `DBusError` (the caller frees it).
    init(libdbus error: CDBus.DBusError, fallback: String) {
        let name = error.name.map { String(cString: $0) } ?? DBusError.Names.failed
        let message = error.message.map { String(cString: $0) } ?? fallback
        self.init(name: name, message: message)
    }
}
