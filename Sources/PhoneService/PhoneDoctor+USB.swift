import Doctor
import PhoneCore
import USBLink

/// The board's USB device on the host: the udev rule that names it and starts the user unit, the device
/// itself, and whether libusb can watch it come and go.
extension PhoneDoctor {
    /// The rule udev uses must exist and match the configured ids (it names them literally).
    static func udevRule(_ rule: InstalledFile?, vendorID: UInt16, productID: UInt16) -> DoctorFinding {
        let ids = usbID(vendorID, productID)
        guard let rule else {
            return .problem(
                "the udev rule \(udevRuleName) is not installed (looked in "
                    + "\(udevRuleDirectories.joined(separator: ", "))): the board's interface gets no name and "
                    + "plugging it in starts no client",
                fix: "install it (scripts/install, or copy udev/\(udevRuleName) to /etc/udev/rules.d), run "
                    + "'udevadm control --reload', then replug the board")
        }
        let text = rule.text.lowercased()
        let vendor = String(ids.prefix(4))
        let product = String(ids.suffix(4))
        guard text.contains(#"idvendor}==""# + vendor + #"""#), text.contains(#"idproduct}==""# + product + #"""#)
        else {
            return .problem(
                "\(rule.path) does not match the board's USB ids \(ids) ([usb] vendor_id and product_id): the "
                    + "board's interface gets no name and plugging it in starts no client",
                fix: "copy it to /etc/udev/rules.d, set its idVendor and idProduct to \(vendor) and \(product), "
                    + "run 'udevadm control --reload', then replug the board")
        }
        return .ok("udev rule \(rule.path) is installed for \(ids)")
    }

    /// The board as sysfs lists it; other gadgets with the same ids are named and left alone. Its device node
    /// is not judged: the client never opens it (libusb's hotplug reads sysfs and udev), so no access to it
    /// is needed or granted.
    static func usbDevices(_ devices: [USBDeviceRecord], vendorID: UInt16, productID: UInt16) -> [DoctorFinding] {
        let ids = usbID(vendorID, productID)
        guard !devices.isEmpty else {
            return [.info("no USB device \(ids) is plugged in")]
        }
        return devices.map { device in
            guard device.manufacturer == boardManufacturer else {
                return .info(
                    "USB \(device.name) is \(ids) but made by \"\(BoardText.printable(device.manufacturer ?? "", limit: 64))\", not "
                        + "\(boardManufacturer): not the board, left alone")
            }
            return .ok(
                "the board is plugged in as USB \(device.name) (bus \(device.busNumber), device \(device.deviceNumber)); "
                    + "the client watches it through sysfs and udev and never opens \(device.node)")
        }
    }

    /// Without hotplug the client does not see the board come and go (the card cannot say "USB down").
    static func hotplug(_ hotplug: Hotplug) -> DoctorFinding {
        switch hotplug.monitoring {
        case .monitoring:
            return .ok(
                "libusb \(hotplug.libraryVersion) hotplug works here"
                    + (hotplug.enumerated > 0 ? " and reports the board plugged in" : ""))
        case let .unmonitored(reason):
            return .problem(
                "libusb cannot watch USB here: \(reason); aiden-phone will not see the board plugged in or out",
                fix: "run aiden-phone on the host the board is plugged into (not in a container without "
                    + "/dev/bus/usb), with Debian's libusb-1.0-0")
        }
    }
}
