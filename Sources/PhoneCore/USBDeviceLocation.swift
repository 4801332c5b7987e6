/// Where a USB device sits right now: the host's boot, its bus, and the address the host gave it.
///
/// The address changes on every enumeration (plug, replug, reset, board reboot) but starts again at
/// boot, so the boot is part of the name: `usb-<boot>-<bus>-<address>` names one connection
/// session. A new session gets a new name, also after the host reboots, and a restarted phone
/// client that finds the device still plugged in sees the same name again. (Within one boot the
/// kernel reuses an address only after 127 other enumerations on the bus.)
package struct USBDeviceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The first 8 hex digits of the kernel's boot id (`/proc/sys/kernel/random/boot_id`); empty
    /// when it could not be read, and then the name is `usb-<bus>-<address>`.
    package var boot: String
    package var bus: UInt8
    package var address: UInt8

    package init(boot: String = "", bus: UInt8, address: UInt8) {
        self.boot = boot
        self.bus = bus
        self.address = address
    }

    /// The connection event id of this session: `usb-<boot>-<bus>-<address>`.
    package var connectionID: String { boot.isEmpty ? "usb-\(bus)-\(address)" : "usb-\(boot)-\(bus)-\(address)" }

    package var description: String { "bus \(bus) address \(address)" }

    /// The short boot name from the contents of `/proc/sys/kernel/random/boot_id`
    /// (`6f9c…-…`): its first 8 hex digits, or empty when the text is not a boot id.
    package static func bootName(fromBootID text: String) -> String {
        let digits = text.utf8.prefix { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: "\n") }
        guard digits.count == 8, digits.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return "" }
        return String(decoding: digits, as: UTF8.self)
    }
}
