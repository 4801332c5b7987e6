import DBusModel
import NetworkAddress

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
    /// The board identity its advertisement carries (manufacturer 0xFFFF, six bytes: the board's adapter
    /// address), as `AA:BB:CC:DD:EE:FF`; nil: none advertised (yet), or not six bytes.
    package var advertisedIdentity: String?

    /// `address` as a value (`BluetoothAddress`); nil when bluetoothd gave none, or something that is not one.
    package var bluetoothAddress: BluetoothAddress? { address.flatMap { BluetoothAddress($0) } }

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
        if let value = properties["ManufacturerData"]?.unwrappingVariants {
            advertisedIdentity = Self.boardIdentity(in: value)
        }
        let advertised: Set<String> = ["RSSI", "ManufacturerData", "ServiceData", "UUIDs"]
        if isAdvertisement, !advertised.isDisjoint(with: properties.keys) {
            seen = true
        }
    }

    /// Whether this is the board. A device advertising a board identity other than its own address is never
    /// it (a copy of another board's advertisement). Then: the configured (or cable-named) address; with none,
    /// a device advertising the Wake service that is either bonded with this host or advertises its own
    /// address as its identity, as every AidenBridge board does. A stranger's device that merely carries the
    /// Wake UUID is not followed.
    package func isBoard(configuredAddress: String?) -> Bool {
        let own = bluetoothAddress
        if let advertisedIdentity, advertisedIdentity != own?.description { return false }
        if let configuredAddress {
            return own != nil && own == BluetoothAddress(configuredAddress)
        }
        return WakeGATT.containsWakeService(uuids) && (paired || advertisedIdentity != nil)
    }

    /// The six identity bytes under manufacturer id 0xFFFF of `ManufacturerData` (`a{qv}`), as an address.
    static func boardIdentity(in manufacturerData: DBusValue) -> String? {
        guard case .dictionary(.uint16, _, let entries) = manufacturerData else { return nil }
        for entry in entries {
            guard case .uint16(WakeGATT.manufacturerID) = entry.key else { continue }
            let bytes: [UInt8]
            switch entry.value.unwrappingVariants {
            case .bytes(let value): bytes = value
            case .array(.byte, let values):
                bytes = values.compactMap { if case .byte(let byte) = $0 { byte } else { nil } }
                guard bytes.count == values.count else { return nil }
            default: return nil
            }
            return BluetoothAddress(bytes: bytes)?.description
        }
        return nil
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

    /// bluetoothd refused a `StartNotify` at once, without asking the board: its GATT client was processing a
    /// Service Changed or did not hold the characteristic (`Failed: Failed to register notify session`). The link
    /// itself is fine; asking again a moment later on it succeeds.
    package var isNotifySessionRefused: Bool {
        kind == .bluez(.failed) && message.lowercased().contains("failed to register notify session")
    }
}
