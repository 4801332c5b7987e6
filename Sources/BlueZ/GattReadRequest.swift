import DBusModel

/// The options bluetoothd passes to a local characteristic's `ReadValue(a{sv})`, checked.
///
/// Only `offset` changes the answer. It must be a `uint16` (`q`, as bluetoothd sends it); an offset past the
/// value's end is `org.bluez.Error.InvalidOffset` (bluetoothd turns it into ATT's Invalid Offset), an offset
/// equal to the length reads nothing. `mtu`, `device`, `link` and keys this code does not know are ignored, as
/// BlueZ's own examples do.
package struct GattReadRequest: Sendable, Equatable {
    package var offset: Int

    package init(offset: Int = 0) {
        self.offset = offset
    }

    /// Parses the options dictionary (already checked to be `a{sv}` by the method's signature).
    package init(options: DBusValue) throws(DBusError) {
        guard let entries = options.vardict else {
            throw .bluez(.invalidArguments, "ReadValue options must be a{sv}, got '\(options.signature)'")
        }
        guard let raw = entries["offset"] else {
            self.init()
            return
        }
        guard let offset = raw.uint16Value else {
            throw .bluez(.invalidArguments, "ReadValue option 'offset' must be uint16 (q), got '\(raw.signature)'")
        }
        self.init(offset: Int(offset))
    }

    /// The bytes of `value` from `offset` on.
    package func slice(_ value: [UInt8]) throws(DBusError) -> [UInt8] {
        guard offset <= value.count else {
            throw .bluez(.invalidOffset, "offset \(offset) is past the end of the \(value.count)-byte value")
        }
        return Array(value[offset...])
    }
}
