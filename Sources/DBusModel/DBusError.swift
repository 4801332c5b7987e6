/// A D-Bus error: the error name as it travels on the bus, and its human-readable message.
///
/// The name is always kept, so an error from a peer can be re-sent or logged unchanged; `kind` recognises
/// the names the BlueZ code decides on (timeouts, a vanished service, BlueZ's own errors).
package struct DBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The D-Bus error name, e.g. `org.bluez.Error.InProgress`.
    package let name: String
    /// What went wrong, for people.
    package let message: String

    package init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    package var kind: Kind { Kind(name: name) }

    package var description: String {
        message.isEmpty ? name : "\(name): \(message)"
    }

    /// The error names this layer recognises; anything else is `.other` (the name stays in `DBusError.name`).
    package enum Kind: Sendable, Hashable {
        case bluez(BlueZ)
        /// No answer in time: `NoReply`, `Timeout`, `TimedOut`.
        case timeout
        /// The connection to the bus is gone (or was closed).
        case disconnected
        /// The destination name has no owner (`ServiceUnknown`, `NameHasNoOwner`).
        case serviceUnknown
        case unknownObject
        case unknownInterface
        case unknownMethod
        case unknownProperty
        case propertyReadOnly
        case invalidArgs
        case invalidSignature
        case accessDenied
        case objectPathInUse
        case failed
        case other

        /// `org.bluez.Error.*` names (see BlueZ's doc/org.bluez.*.rst "Possible errors").
        package enum BlueZ: String, Sendable, Hashable, CaseIterable {
            case failed = "Failed"
            case inProgress = "InProgress"
            case notPermitted = "NotPermitted"
            case notAuthorized = "NotAuthorized"
            case invalidArguments = "InvalidArguments"
            case invalidLength = "InvalidLength"
            case invalidOffset = "InvalidOffset"
            case invalidValueLength = "InvalidValueLength"
            case notSupported = "NotSupported"
            case alreadyExists = "AlreadyExists"
            case alreadyConnected = "AlreadyConnected"
            case doesNotExist = "DoesNotExist"
            case notReady = "NotReady"
            case notConnected = "NotConnected"
            case notAvailable = "NotAvailable"
            case notFound = "NotFound"
            case notPaired = "NotPaired"
            case authenticationFailed = "AuthenticationFailed"
            case connectionAttemptFailed = "ConnectionAttemptFailed"
        }

        package init(name: String) {
            let bluezPrefix = "org.bluez.Error."
            if name.hasPrefix(bluezPrefix) {
                self = BlueZ(rawValue: String(name.dropFirst(bluezPrefix.count))).map(Kind.bluez) ?? .other
                return
            }
            self = Self.freedesktop[name] ?? .other
        }

        private static let freedesktop: [String: Kind] = [
            DBusError.Names.noReply: .timeout,
            DBusError.Names.timeout: .timeout,
            DBusError.Names.timedOut: .timeout,
            DBusError.Names.disconnected: .disconnected,
            DBusError.Names.noServer: .disconnected,
            DBusError.Names.serviceUnknown: .serviceUnknown,
            DBusError.Names.nameHasNoOwner: .serviceUnknown,
            DBusError.Names.unknownObject: .unknownObject,
            DBusError.Names.unknownInterface: .unknownInterface,
            DBusError.Names.unknownMethod: .unknownMethod,
            DBusError.Names.unknownProperty: .unknownProperty,
            DBusError.Names.propertyReadOnly: .propertyReadOnly,
            DBusError.Names.invalidArgs: .invalidArgs,
            DBusError.Names.invalidSignature: .invalidSignature,
            DBusError.Names.accessDenied: .accessDenied,
            DBusError.Names.objectPathInUse: .objectPathInUse,
            DBusError.Names.failed: .failed,
        ]
    }

    /// Well-known error names.
    package enum Names {
        package static let failed = "org.freedesktop.DBus.Error.Failed"
        package static let noReply = "org.freedesktop.DBus.Error.NoReply"
        package static let timeout = "org.freedesktop.DBus.Error.Timeout"
        package static let timedOut = "org.freedesktop.DBus.Error.TimedOut"
        package static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
        package static let noServer = "org.freedesktop.DBus.Error.NoServer"
        package static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
        package static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
        package static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
        package static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
        package static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
        package static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
        package static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
        package static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
        package static let invalidSignature = "org.freedesktop.DBus.Error.InvalidSignature"
        package static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
        package static let objectPathInUse = "org.freedesktop.DBus.Error.ObjectPathInUse"
    }
}

extension DBusError {
    package static func failed(_ message: String) -> DBusError {
        DBusError(name: Names.failed, message: message)
    }

    package static func invalidArgs(_ message: String) -> DBusError {
        DBusError(name: Names.invalidArgs, message: message)
    }

    package static func invalidSignature(_ message: String) -> DBusError {
        DBusError(name: Names.invalidSignature, message: message)
    }

    package static func timeout(_ message: String) -> DBusError {
        DBusError(name: Names.noReply, message: message)
    }

    package static func disconnected(_ message: String) -> DBusError {
        DBusError(name: Names.disconnected, message: message)
    }

    package static func serviceUnknown(_ message: String) -> DBusError {
        DBusError(name: Names.serviceUnknown, message: message)
    }

    package static func unknownObject(_ path: DBusObjectPath) -> DBusError {
        DBusError(name: Names.unknownObject, message: "No such object path '\(path)'")
    }

    package static func unknownInterface(_ interface: String, at path: DBusObjectPath) -> DBusError {
        DBusError(name: Names.unknownInterface, message: "No such interface '\(interface)' at object path '\(path)'")
    }

    package static func unknownMethod(_ member: String, interface: String?, at path: DBusObjectPath) -> DBusError {
        let scope = interface.map { "interface '\($0)'" } ?? "any interface"
        return DBusError(
            name: Names.unknownMethod, message: "No such method '\(member)' in \(scope) at object path '\(path)'")
    }

    package static func unknownProperty(_ property: String, interface: String) -> DBusError {
        DBusError(name: Names.unknownProperty, message: "No such property '\(property)' in interface '\(interface)'")
    }

    package static func propertyReadOnly(_ property: String, interface: String) -> DBusError {
        DBusError(name: Names.propertyReadOnly, message: "Property '\(property)' of '\(interface)' is read-only")
    }

    /// An `org.bluez.Error.*` error, e.g. for a fake BlueZ in tests.
    package static func bluez(_ kind: Kind.BlueZ, _ message: String = "") -> DBusError {
        DBusError(name: "org.bluez.Error.\(kind.rawValue)", message: message)
    }
}
