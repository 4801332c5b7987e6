/// Where a USB device sits right now: its bus and the address the host gave it.
///
/// The address changes on every enumeration (plug, replug, reset, board reboot), so
/// `usb-<bus>-<address>` names one connection session: a new session gets a new name, and a
/// restarted phone client that finds the device still plugged in sees the same name again.
package struct USBDeviceLocation: Sendable, Hashable, CustomStringConvertible {
    package var bus: UInt8
    package var address: UInt8

    package init(bus: UInt8, address: UInt8) {
        self.bus = bus
        self.address = address
    }

    /// The connection event id of this session: `usb-<bus>-<address>`.
    package var connectionID: String { "usb-\(bus)-\(address)" }

    package var description: String { "bus \(bus) address \(address)" }
}
