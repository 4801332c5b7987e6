import DBusModel

/// Names on bluetoothd's side of the bus (BlueZ's doc/org.bluez.*.rst).
package enum BlueZNames {
    /// bluetoothd's well-known bus name.
    package static let service = "org.bluez"
    /// Where bluetoothd keeps `AgentManager1` and its adapters (`/org/bluez/hci0`).
    package static let root: DBusObjectPath = "/org/bluez"

    package static let adapter = "org.bluez.Adapter1"
    package static let device = "org.bluez.Device1"
    package static let gattManager = "org.bluez.GattManager1"
    package static let advertisingManager = "org.bluez.LEAdvertisingManager1"
    package static let gattService = "org.bluez.GattService1"
    package static let gattCharacteristic = "org.bluez.GattCharacteristic1"
    package static let advertisement = "org.bluez.LEAdvertisement1"
    package static let agentManager = "org.bluez.AgentManager1"
    package static let agent = "org.bluez.Agent1"

    /// The interfaces an adapter must carry before the peripheral can register on it: bluetoothd adds them
    /// asynchronously and in no fixed order (the adapter first, its managers a moment later).
    package static let peripheralAdapterInterfaces: Set<String> = [adapter, gattManager, advertisingManager]

    /// `/org/bluez/hci0` for `hci0`.
    package static func adapterPath(_ name: String) -> DBusObjectPath {
        root.appending(name)
    }
}
