/// A D-Bus message as a Swift value: the headers this layer uses and the body.
///
/// Converted to and from libdbus's `DBusMessage*` only on the connection's thread (see `DBusMessage+LibDBus`);
/// everywhere else, including the fake bus, it is a plain value.
package struct DBusMessage: Sendable, Hashable {
    package enum MessageType: Sendable, Hashable {
        case methodCall, methodReturn, error, signal
    }

    package var type: MessageType
    package var path: DBusObjectPath?
    package var interface: String?
    package var member: String?
    package var destination: String?
    /// Set by the bus on delivery (a unique name such as `:1.42`).
    package var sender: String?
    /// Assigned by libdbus when the message is sent; 0 before.
    package var serial: UInt32
    /// For method returns and errors: the serial of the call they answer.
    package var replySerial: UInt32?
    package var errorName: String?
    /// For method calls: the caller wants no answer, so none is sent.
    package var noReplyExpected: Bool
    package var body: [DBusValue]

    package init(
        type: MessageType, path: DBusObjectPath? = nil, interface: String? = nil, member: String? = nil,
        destination: String? = nil, sender: String? = nil, serial: UInt32 = 0, replySerial: UInt32? = nil,
        errorName: String? = nil, noReplyExpected: Bool = false, body: [DBusValue] = []
    ) {
        self.type = type
        self.path = path
        self.interface = interface
        self.member = member
        self.destination = destination
        self.sender = sender
        self.serial = serial
        self.replySerial = replySerial
        self.errorName = errorName
        self.noReplyExpected = noReplyExpected
        self.body = body
    }

    /// The default timeout of a method call: long enough for bluetoothd under load, short enough that a hung
    /// peer is noticed.
    package static let defaultCallTimeout: Duration = .seconds(5)

    /// The signature of the body.
    package var signature: DBusSignature { body.signature }

    package static func methodCall(
        destination: String?, path: DBusObjectPath, interface: String?, member: String, body: [DBusValue] = []
    ) -> DBusMessage {
        DBusMessage(
            type: .methodCall, path: path, interface: interface, member: member, destination: destination, body: body)
    }

    package static func signal(
        path: DBusObjectPath, interface: String, member: String, destination: String? = nil,
        body: [DBusValue] = []
    ) -> DBusMessage {
        DBusMessage(
            type: .signal, path: path, interface: interface, member: member, destination: destination, body: body)
    }

    /// The successful answer to `call`.
    package static func methodReturn(replyingTo call: DBusMessage, body: [DBusValue] = []) -> DBusMessage {
        DBusMessage(type: .methodReturn, destination: call.sender, replySerial: call.serial, body: body)
    }

    /// The error answer to `call`: the error's name, and its message as the single string argument.
    package static func error(replyingTo call: DBusMessage, _ error: DBusError) -> DBusMessage {
        DBusMessage(
            type: .error, destination: call.sender, replySerial: call.serial, errorName: error.name,
            body: error.message.isEmpty ? [] : [.string(error.message)])
    }

    /// For an error message, the error it carries (its first string argument is the message).
    package var error: DBusError? {
        guard type == .error else { return nil }
        return DBusError(name: errorName ?? DBusError.Names.failed, message: body.first?.stringValue ?? "")
    }

    /// The body, after checking that it has exactly `expected` as signature: decoding code can then pick the
    /// arguments by position. A mismatch is `InvalidArgs` naming both signatures.
    package func arguments(_ expected: DBusSignature) throws(DBusError) -> [DBusValue] {
        guard signature == expected else {
            throw .invalidArgs("\(memberDescription) expects arguments '\(expected)', got '\(signature)'")
        }
        return body
    }

    /// `interface.member`, or the member alone, for messages that name what they are about.
    package var memberDescription: String {
        switch (interface, member) {
        case (let interface?, let member?): "\(interface).\(member)"
        case (nil, let member?): member
        default: "\(type)"
        }
    }
}
