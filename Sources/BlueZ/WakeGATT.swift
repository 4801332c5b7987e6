import DBusModel

/// The Wake service as it appears on the air and on the bus (docs/protocol.md §2.1).
package enum WakeGATT {
    package static let serviceUUID = "a1de0001-7c4b-4f52-8d9a-6b4f6e6f7469"
    package static let characteristicUUID = "a1de0002-7c4b-4f52-8d9a-6b4f6e6f7469"
    package static let defaultFlags = ["encrypt-read", "notify"]

    /// Bluetooth SIG company identifier 0xFFFF: "for internal and interoperability tests", the id for products
    /// that have no company id of their own. The manufacturer data carries the 6-byte board identity.
    package static let manufacturerID: UInt16 = 0xFFFF

    /// Where the board's objects live on its own connection. The advertisement and the agent sit outside the
    /// GATT application's object manager, so bluetoothd's `GetManagedObjects` on the application sees only the
    /// service and its characteristic.
    package enum Paths {
        package static let application: DBusObjectPath = "/org/aidenbridge/wake"
        package static let service: DBusObjectPath = "/org/aidenbridge/wake/service0"
        package static let characteristic: DBusObjectPath = "/org/aidenbridge/wake/service0/char0"
        package static let advertisement: DBusObjectPath = "/org/aidenbridge/advertisement0"
        package static let agent: DBusObjectPath = "/org/aidenbridge/agent"
    }

    /// Whether `uuids` (as BlueZ lists them in `UUIDs`/`ServiceUUIDs`) name the Wake service, in any case.
    package static func containsWakeService(_ uuids: [String]) -> Bool {
        uuids.contains { $0.lowercased() == serviceUUID }
    }
}
