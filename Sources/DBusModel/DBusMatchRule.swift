/// A bus match rule (`AddMatch`): which signals this connection wants to receive.
///
/// The bus filters broadcasts by the rule; locally, each handler gets only the messages its own rule matches.
/// One approximation: a message's sender is always a unique name (`:1.5`), so a rule naming a well-known
/// sender (`org.bluez`) is not re-checked locally on the sender. That is safe for broadcasts only: a unicast
/// signal addressed to this connection arrives whatever the rules say, from anybody, so a handler that
/// trusts a well-known sender must compare `message.sender` with that name's current owner
/// (`LifecycleDriver` does, for bluetoothd).
package struct DBusMatchRule: Sendable, Hashable, CustomStringConvertible {
    package var type: DBusMessage.MessageType?
    package var sender: String?
    package var interface: String?
    package var member: String?
    package var path: DBusObjectPath?
    /// Matches `path` and every path below it (`path_namespace`).
    package var pathNamespace: DBusObjectPath?
    /// String arguments by index (`arg0='org.bluez'`).
    package var arguments: [Int: String]

    package init(
        type: DBusMessage.MessageType? = .signal, sender: String? = nil, interface: String? = nil,
        member: String? = nil, path: DBusObjectPath? = nil, pathNamespace: DBusObjectPath? = nil,
        arguments: [Int: String] = [:]
    ) {
        self.type = type
        self.sender = sender
        self.interface = interface
        self.member = member
        self.path = path
        self.pathNamespace = pathNamespace
        self.arguments = arguments
    }

    /// `PropertiesChanged` signals, optionally from one sender and below one path.
    package static func propertiesChanged(sender: String? = nil, pathNamespace: DBusObjectPath? = nil) -> Self {
        DBusMatchRule(
            sender: sender, interface: DBusStandardInterfaces.properties, member: "PropertiesChanged",
            pathNamespace: pathNamespace)
    }

    /// The bus's `NameOwnerChanged` signal for one name.
    package static func nameOwnerChanged(_ name: String) -> Self {
        DBusMatchRule(
            sender: DBusStandardInterfaces.busName, interface: DBusStandardInterfaces.busInterface,
            member: "NameOwnerChanged", path: DBusStandardInterfaces.busPath, arguments: [0: name])
    }

    /// The rule in the bus's text syntax, e.g. `type='signal',sender='org.bluez',arg0='hci0'`.
    package var description: String {
        var parts: [String] = []
        if let type {
            let name =
                switch type {
                case .signal: "signal"
                case .methodCall: "method_call"
                case .methodReturn: "method_return"
                case .error: "error"
                }
            parts.append("type='\(name)'")
        }
        if let sender { parts.append("sender=" + Self.quoted(sender)) }
        if let interface { parts.append("interface=" + Self.quoted(interface)) }
        if let member { parts.append("member=" + Self.quoted(member)) }
        if let path { parts.append("path=" + Self.quoted(path.rawValue)) }
        if let pathNamespace { parts.append("path_namespace=" + Self.quoted(pathNamespace.rawValue)) }
        for (index, value) in arguments.sorted(by: { $0.key < $1.key }) {
            parts.append("arg\(index)=" + Self.quoted(value))
        }
        return parts.joined(separator: ",")
    }

    /// Whether `message` matches this rule (see the sender approximation above).
    package func matches(_ message: DBusMessage) -> Bool {
        if let type, message.type != type { return false }
        if let sender, sender.hasPrefix(":") || sender == DBusStandardInterfaces.busName {
            guard message.sender == sender else { return false }
        }
        if let interface, message.interface != interface { return false }
        if let member, message.member != member { return false }
        if let path, message.path != path { return false }
        if let pathNamespace {
            guard let messagePath = message.path,
                messagePath == pathNamespace || messagePath.isDescendant(of: pathNamespace)
            else { return false }
        }
        for (index, value) in arguments {
            guard index < message.body.count, message.body[index].stringValue == value else { return false }
        }
        return true
    }

    /// Checks what the bus would reject, so `AddMatch` fails here with a clear message.
    package func validate() throws(DBusError) {
        if let sender, !DBusNames.isValidBusName(sender) {
            throw .invalidArgs("match rule: invalid sender '\(sender)'")
        }
        if let interface, !DBusNames.isValidInterface(interface) {
            throw .invalidArgs("match rule: invalid interface '\(interface)'")
        }
        if let member, !DBusNames.isValidMember(member) { throw .invalidArgs("match rule: invalid member '\(member)'") }
        if let path, !path.isValid { throw .invalidArgs("match rule: invalid path '\(path)'") }
        if let pathNamespace, !pathNamespace.isValid {
            throw .invalidArgs("match rule: invalid path namespace '\(pathNamespace)'")
        }
        if path != nil && pathNamespace != nil { throw .invalidArgs("match rule: path and path_namespace together") }
        for (index, value) in arguments {
            guard (0...63).contains(index) else { throw .invalidArgs("match rule: argument index \(index) > 63") }
            guard !value.utf8.contains(0) else { throw .invalidArgs("match rule: arg\(index) contains NUL") }
        }
    }

    /// Values are quoted with `'`; a `'` inside is written `'\''` (close, escaped quote, reopen).
    private static func quoted(_ value: String) -> String {
        "'" + value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: #"'\''"#) + "'"
    }
}

/// Identifies a handler added with `MessageBus.addMatch`, for `removeMatch`.
package struct DBusMatchToken: Sendable, Hashable {
    package let id: UInt64

    package init(id: UInt64) {
        self.id = id
    }
}
