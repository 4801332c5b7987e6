import DBusModel
import NetworkAddress

/// The `org.bluez.LEAdvertisement1` properties of the board's advertisement (docs/protocol.md §2.7): type
/// `peripheral`, the Wake service UUID, manufacturer data 0xFFFF with the 6-byte board identity, the local name
/// `Aiden-XXXX`. Only `Discoverable` changes (while a pairing window is open); bluetoothd re-reads it on
/// `PropertiesChanged`, so the advertisement is never registered twice.
///
/// Legacy advertising data is 31 bytes: flags (3) + one 128-bit service UUID (18) + manufacturer data
/// (4 + 6) = 31. bluetoothd puts the local name in the scan response.
package struct WakeAdvertisement: Sendable, Equatable {
    /// The board identity in the manufacturer data: the adapter's address, most significant byte first.
    package var identity: [UInt8]
    /// `Aiden-` and the last 4 hex digits of the adapter address.
    package var localName: String
    package var discoverable: Bool

    package init(identity: [UInt8], localName: String, discoverable: Bool) {
        self.identity = identity
        self.localName = localName
        self.discoverable = discoverable
    }

    /// Derived from the adapter's address ("AA:BB:CC:DD:EE:FF"); an unknown or malformed address gives a
    /// zero identity and the name `Aiden-0000`.
    package init(adapterAddress: String?, discoverable: Bool) {
        let address = adapterAddress.flatMap { BluetoothAddress($0) }
        self.init(
            identity: address?.bytes ?? [0, 0, 0, 0, 0, 0], localName: "Aiden-" + (address?.shortSuffix ?? "0000"),
            discoverable: discoverable)
    }

    /// The properties as `GetAll(org.bluez.LEAdvertisement1)` answers them.
    package var properties: [String: DBusValue] {
        [
            "Type": .string("peripheral"),
            "ServiceUUIDs": .strings([WakeGATT.serviceUUID]),
            "ManufacturerData": .variantDictionary(
                key: .uint16, [(.uint16(WakeGATT.manufacturerID), .bytes(identity))]),
            "LocalName": .string(localName),
            "Discoverable": .boolean(discoverable),
        ]
    }
}
