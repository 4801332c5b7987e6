/// Names of the standard interfaces and of the bus itself.
package enum DBusStandardInterfaces {
    package static let properties = "org.freedesktop.DBus.Properties"
    package static let introspectable = "org.freedesktop.DBus.Introspectable"
    package static let objectManager = "org.freedesktop.DBus.ObjectManager"
    package static let peer = "org.freedesktop.DBus.Peer"

    /// The message bus's own name, path and interface (`Hello`, `AddMatch`, `RequestName`, `NameOwnerChanged`).
    package static let busName = "org.freedesktop.DBus"
    package static let busPath: DBusObjectPath = "/org/freedesktop/DBus"
    package static let busInterface = "org.freedesktop.DBus"

    /// Interfaces an exported object gets from this layer and may not declare itself.
    static let builtIn: Set<String> = [properties, introspectable, objectManager, peer]
}
