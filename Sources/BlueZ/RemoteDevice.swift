import DBusModel

/// What the central knows about one `Device1` object (a board candidate) from bluetoothd's tree and signals.
package struct RemoteDevice: Sendable, Equatable {
    package var address: String?
    package var uuids: [String] = []
    package var connected = false
    package var servicesResolved = false
    /// bluetoothd holds a bond with it (`Paired`).
    package var paired = false
    /// bluetoothd lets it connect without asking an agent (`Trusted`).
    package var trusted = false
    /// Seen by the radio in this discovery: `RSSI` present, or a fresh advertisement reported.
    package var seen = false

    package init(properties: [String: DBusValue]) {
        apply(properties, isAdvertisement: false)
        if properties["RSSI"] != nil { seen = true }
    }

    /// Applies changed `Device1` properties. `RSSI`, `ManufacturerData`, `ServiceData` or `UUIDs` changing is
    /// bluetoothd reporting an advertisement it just received.
    package mutating func apply(_ properties: [String: DBusValue], isAdvertisement: Bool = true) {
        if let value = properties["Address"]?.unwrappingVariants.stringValue { address = value }
        if let value = properties["UUIDs"]?.unwrappingVariants.stringArray { uuids = value }
        if let value = properties["Connected"]?.unwrappingVariants.boolValue { connected = value }
        if let value = properties["ServicesResolved"]?.unwrappingVariants.boolValue { servicesResolved = value }
        if let value = properties["Paired"]?.unwrappingVariants.boolValue { paired = value }
        if let value = properties["Trusted"]?.unwrappingVariants.boolValue { trusted = value }
        let advertised: Set<String> = ["RSSI", "ManufacturerData", "ServiceData", "UUIDs"]
        if isAdvertisement, !advertised.isDisjoint(with: properties.keys) {
            seen = true
        }
    }

    /// Whether this is the board: the configured address, or (none configured) the Wake service UUID.
    package func isBoard(configuredAddress: String?) -> Bool {
        if let configuredAddress {
            return address?.uppercased() == configuredAddress.uppercased()
        }
        return WakeGATT.containsWakeService(uuids)
    }
}

extension DBusError {
    /// The link's security was refused: the board does not know (or no longer knows) this phone's bond.
    /// bluetoothd reports it as `AuthenticationFailed`, `NotPermitted`/`NotAuthorized`, or an ATT error 0x05
    /// (insufficient authentication), 0x08 (authorization), 0x0c (key size) or 0x0f (insufficient encryption).
    package var isBondProblem: Bool {
        switch kind {
        case .bluez(.authenticationFailed), .bluez(.notPermitted), .bluez(.notAuthorized), .bluez(.notPaired):
            return true
        default:
            let text = message.lowercased()
            return [
                "insufficient encryption", "insufficient authentication", "insufficient authorization",
                "encryption key size", "authentication failed", "att error: 0x05", "att error: 0x08",
                "att error: 0x0c", "att error: 0x0f",
            ].contains { text.contains($0) }
        }
    }
}
