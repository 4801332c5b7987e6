import BlueZ
import DBus
import DBusModel

/// D-Bus from the system bus (any local user can send to the daemons; bluetoothd's answers are read the
/// same way), in three forms chosen by the input's first byte:
///
/// - 0: the rest is a message in wire format, parsed by `dbus_message_demarshal` (which validates as a
///   receiver does) and converted to a `DBusMessage`, then decoded as the lifecycles decode bluetoothd's
///   signals (`BlueZSignal`). What libdbus accepted must pass `DBusModel`'s validation, convert back, and
///   survive a second trip through the wire unchanged.
/// - 1: the rest is a signature. When `DBusModel` accepts it, a value of each of its types goes through
///   libdbus and back unchanged: a signature the model passes never makes libdbus abort.
/// - 2: the rest is header names, one a line (path, interface, member, destination, error name, sender).
///   Those the model calls valid go into an error and a signal through libdbus and back unchanged.
package enum DBusMessageHarness: FuzzHarness {
    package static let name = "dbus-message"

    package static func run(_ input: [UInt8]) throws(InvariantViolation) -> FuzzVerdict {
        guard let mode = input.first else { return .rejected }
        let rest = Array(input.dropFirst())
        switch mode % 3 {
        case 0: return try wire(rest)
        case 1: return try signature(rest)
        default: return try names(rest)
        }
    }

    private static func wire(_ bytes: [UInt8]) throws(InvariantViolation) -> FuzzVerdict {
        let message: DBusMessage
        do {
            message = try DBusMessage(wireBytes: bytes)
        } catch {
            return .rejected
        }
        _ = BlueZSignal(message)
        do {
            try message.validate()
        } catch {
            throw InvariantViolation("libdbus accepted a message DBusModel refuses (\(error)): \(message)")
        }
        // Headers this layer does not keep for the message's type are not sent again.
        var kept = message
        if kept.type != .methodReturn && kept.type != .error { kept.replySerial = nil }
        if kept.type != .error { kept.errorName = nil }
        // libdbus marks every signal it builds as wanting no reply.
        if kept.type == .signal { kept.noReplyExpected = true }
        let serial = max(1, message.serial)
        kept.serial = serial
        let again = try trip(kept, serial: serial)
        try require(again.message.body.signature == kept.body.signature, "the body changed type: \(again.message)")
        // A NaN double is unequal to itself (and `==` on arrays sharing storage does not look): the bytes compare.
        if !kept.body.contains(where: \.holdsNaN) {
            try require(again.message == kept, "\(kept)\nbecame\n\(again.message)")
        }
        let third = try trip(again.message, serial: serial)
        try require(third.bytes == again.bytes, "the wire bytes of \(kept) are not stable")
        return .accepted
    }

    private static func signature(_ bytes: [UInt8]) throws(InvariantViolation) -> FuzzVerdict {
        let text = FuzzRecords.cString(bytes)
        guard let types = try? DBusSignature(text).types(), !types.isEmpty else { return .rejected }
        try require(DBusSignature(types).rawValue == text, "signature \(text) reads as \(types)")
        // No value carries a file descriptor (`h`).
        let body = types.compactMap(sample)
        guard body.count == types.count else { return .rejected }
        let message = DBusMessage.signal(
            path: "/org/aiden/fuzz", interface: "org.aiden.Fuzz1", member: "Values", body: body)
        guard (try? message.validate()) != nil else { return .rejected }
        let back: DBusMessage
        do {
            back = try message.roundTrippedThroughLibDBus()
        } catch {
            throw InvariantViolation("libdbus refused a body DBusModel accepts (\(error)): \(text)")
        }
        try require(back.body == body, "signature \(text): \(body) came back as \(back.body)")
        return .accepted
    }

    private static func names(_ bytes: [UInt8]) throws(InvariantViolation) -> FuzzVerdict {
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(
            FuzzRecords.cString)
        func field(_ index: Int) -> String? { index < lines.count && !lines[index].isEmpty ? lines[index] : nil }
        let path = field(0).map { DBusObjectPath($0) } ?? "/"
        let interface = field(1) ?? "org.aiden.Fuzz1"
        let member = field(2) ?? "Changed"
        var signal = DBusMessage.signal(path: path, interface: interface, member: member, destination: field(3))
        signal.sender = field(5)
        var error = DBusMessage(
            type: .error, destination: field(3), sender: field(5), replySerial: 9,
            errorName: field(4) ?? "org.aiden.Error.Failed", body: [.string("fuzz")])
        error.path = field(0).map { DBusObjectPath($0) }
        var verdict = FuzzVerdict.accepted
        for var message in [signal, error] {
            guard (try? message.validate()) != nil else {
                verdict = .rejected
                continue
            }
            message.serial = 5
            if message.type == .signal { message.noReplyExpected = true }
            let back = try trip(message, serial: 5)
            try require(back.message == message, "\(message)\nbecame\n\(back.message)")
        }
        return verdict
    }

    /// A message through `dbus_message_marshal` and `dbus_message_demarshal`.
    private static func trip(
        _ message: DBusMessage, serial: UInt32
    ) throws(InvariantViolation) -> (message: DBusMessage, bytes: [UInt8]) {
        do {
            let bytes = try message.wireBytes(serial: serial)
            return (try DBusMessage(wireBytes: bytes), bytes)
        } catch {
            throw InvariantViolation("a valid message did not survive libdbus (\(error)): \(message)")
        }
    }

    /// A value of `type` with one element in each container, so nesting is exercised; nil for `h`.
    private static func sample(_ type: DBusType) -> DBusValue? {
        switch type {
        case .byte: return .byte(0)
        case .boolean: return .boolean(true)
        case .int16: return .int16(-1)
        case .uint16: return .uint16(1)
        case .int32: return .int32(-2)
        case .uint32: return .uint32(2)
        case .int64: return .int64(-3)
        case .uint64: return .uint64(3)
        case .double: return .double(0.5)
        case .string: return .string("s")
        case .objectPath: return .objectPath("/o")
        case .signature: return .signature("a{sv}")
        case .unixFD: return nil
        case .array(.byte): return .bytes([1])
        case let .array(element): return sample(element).map { .array(element, [$0]) }
        case let .dictionary(keyType, valueType):
            guard let key = sample(keyType), let value = sample(valueType) else { return nil }
            return .dictionary(key: keyType, value: valueType, [DBusDictEntry(key, value)])
        case let .structure(members):
            let values = members.compactMap(sample)
            return values.count == members.count ? .structure(values) : nil
        case .variant: return .variant(.uint32(7))
        }
    }
}

extension DBusValue {
    /// Whether a double anywhere inside is NaN.
    fileprivate var holdsNaN: Bool {
        switch self {
        case let .double(value): return value.isNaN
        case let .array(_, items), let .structure(items): return items.contains(where: \.holdsNaN)
        case let .dictionary(_, _, entries): return entries.contains { $0.key.holdsNaN || $0.value.holdsNaN }
        case let .variant(inner): return inner.holdsNaN
        default: return false
        }
    }
}
