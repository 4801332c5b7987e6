/// Flags of `org.freedesktop.DBus.RequestName`.
package struct DBusRequestNameFlags: OptionSet, Sendable, Hashable {
    package let rawValue: UInt32

    package init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    package static let allowReplacement = DBusRequestNameFlags(rawValue: 1)
    package static let replaceExisting = DBusRequestNameFlags(rawValue: 2)
    package static let doNotQueue = DBusRequestNameFlags(rawValue: 4)
}

/// The answer of `org.freedesktop.DBus.RequestName`.
package enum DBusRequestNameReply: UInt32, Sendable, Hashable {
    case primaryOwner = 1
    case inQueue = 2
    case exists = 3
    case alreadyOwner = 4
}
