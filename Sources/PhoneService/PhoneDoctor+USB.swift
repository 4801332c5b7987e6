import Doctor
import PhoneCore
import USBLink

/// The board's USB device on the host: the udev rule that names and opens it, its device node, and
/// whether libusb can watch it come and go.
extension PhoneDoctor {
    /// The rule udev uses must exist and match the configured ids (it names them literally).
    static func udevRule(_ rule: InstalledFile?, vendorID: UInt16, productID: UInt16) -> DoctorFinding {
        let ids = usbID(vendorID, productID)
        guard let rule else {
            return .problem(
                "the udev rule \(udevRuleName) is not installed (looked in "
                    + "\(udevRuleDirectories.joined(separator: ", "))): the board's device node and interface get "
                    + "no permissions and no name",
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
                    + "board's device node and interface get no permissions and no name",
                fix: "copy it to /etc/udev/rules.d, set its idVendor and idProduct to \(vendor) and \(product), "
                    + "run 'udevadm control --reload', then replug the board")
        }
        return .ok("udev rule \(rule.path) is installed for \(ids)")
    }

    /// The board's device node must be readable and writable by this user (libusb opens it); other gadgets
    /// with the same ids are named and left alone.
    static func deviceNodes(
        _ devices: [USBDeviceRecord], user: String, vendorID: UInt16, productID: UInt16
    ) -> [DoctorFinding] {
        let ids = usbID(vendorID, productID)
        guard !devices.isEmpty else {
            return [.info("no USB device \(ids) is plugged in: the board's device node is not checked")]
        }
        return devices.map { device in
            guard device.manufacturer == boardManufacturer else {
                return .info(
                    "USB \(device.name) is \(ids) but made by \"\(BoardText.printable(device.manufacturer ?? "", limit: 64))\", not "
                        + "\(boardManufacturer): not the board, left alone")
            }
            switch device.nodeAccess {
            case .readWrite:
                return .ok(
                    "the board's device node \(device.node) (USB \(device.name)) is readable and writable by \(user)")
            case .missing:
                return .problem(
                    "the board is USB \(device.name), but there is no device node \(device.node)",
                    fix: "udev and devtmpfs make it: run on the host itself (not in a container without /dev/bus/usb)")
            case let .denied(reason):
                return .problem(
                    "the board's device node \(device.node) (USB \(device.name)) is not readable and writable by "
                        + "\(user): \(reason)",
                    fix: "\(udevRuleName) gives it to group aiden: add \(user) to it ('usermod -aG aiden \(user)', "
                        + "then log in again) or run aiden-phone as 'aiden'; after changing the rule, "
                        + "'udevadm control --reload' and replug the board")
            }
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
