import DBusModel

/// The signals bluetoothd sends that the lifecycles react to, decoded from a message with a checked signature.
/// Anything else (or a malformed one) decodes to nil and is ignored.
package enum BlueZSignal: Sendable, Equatable {
    /// `ObjectManager.InterfacesAdded(o, a{sa{sv}})`.
    case interfacesAdded(DBusObjectPath, [String: [String: DBusValue]])
    /// `ObjectManager.InterfacesRemoved(o, as)`.
    case interfacesRemoved(DBusObjectPath, [String])
    /// `Properties.PropertiesChanged(s, a{sv}, as)` of the object at the path.
    case propertiesChanged(DBusObjectPath, interface: String, changed: [String: DBusValue], invalidated: [String])

    package init?(_ message: DBusMessage) {
        guard message.type == .signal else { return nil }
        switch (message.interface, message.member) {
        case (DBusStandardInterfaces.objectManager?, "InterfacesAdded"?):
            guard message.signature == "oa{sa{sv}}", let path = message.body[0].objectPathValue,
                let interfaces = message.body[1].interfacesAndProperties
            else { return nil }
            self = .interfacesAdded(path, interfaces)
        case (DBusStandardInterfaces.objectManager?, "InterfacesRemoved"?):
            guard message.signature == "oas", let path = message.body[0].objectPathValue,
                let names = message.body[1].stringArray
            else { return nil }
            self = .interfacesRemoved(path, names)
        case (DBusStandardInterfaces.properties?, "PropertiesChanged"?):
            guard message.signature == "sa{sv}as", let path = message.path,
                let interface = message.body[0].stringValue, let changed = message.body[1].vardict,
                let invalidated = message.body[2].stringArray
            else { return nil }
            self = .propertiesChanged(path, interface: interface, changed: changed, invalidated: invalidated)
        default:
            return nil
        }
    }
}
