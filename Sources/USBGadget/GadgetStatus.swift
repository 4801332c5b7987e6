/// What `aiden-board gadget status` reports: whether configfs holds the board's gadget, the UDC it is bound
/// to, the network interface the kernel made for it with its carrier and addresses, and the MAC addresses of both
/// ends. Read-only; the controller reads configfs, the command adds the interface's facts.
package struct GadgetStatus: Equatable, Sendable {
    /// `usb_gadget/` in configfs.
    package var gadgets: String
    /// `usb_gadget/aiden` exists.
    package var created: Bool
    package var boundUDC: String?
    /// The ECM function's `ifname` (the name udev gave it, `aiden0`, once renamed).
    package var interface: String?
    /// The function's `dev_addr` (the board's end) and `host_addr` (the host's end).
    package var deviceAddress: String?
    package var hostAddress: String?
    /// The interface's carrier (nil: unknown, no interface).
    package var carrier: Bool?
    /// The interface's IPv4 and IPv6 addresses, with their prefix length.
    package var addresses: [String]

    package init(
        gadgets: String, created: Bool, boundUDC: String? = nil, interface: String? = nil,
        deviceAddress: String? = nil, hostAddress: String? = nil, carrier: Bool? = nil, addresses: [String] = []
    ) {
        self.gadgets = gadgets
        self.created = created
        self.boundUDC = boundUDC
        self.interface = interface
        self.deviceAddress = deviceAddress
        self.hostAddress = hostAddress
        self.carrier = carrier
        self.addresses = addresses
    }

    /// Exit status when the gadget is not up (created and bound), as `systemctl status` uses 3 for a unit that
    /// is not active. (69, configfs missing, and 1, a file that cannot be read, come from `GadgetError`.)
    package static let notUpExitCode: Int32 = 3

    /// 0 when the gadget is created and bound to a UDC, `notUpExitCode` otherwise.
    package var exitCode: Int32 { isUp ? 0 : Self.notUpExitCode }

    package var isUp: Bool { created && boundUDC != nil }

    /// The report: one line saying what the gadget is, then its interface and its ends.
    package var lines: [String] {
        let name = GadgetSpec.gadgetName
        guard created else {
            return [
                "gadget \(name): not set up in \(gadgets) (run aiden-board gadget up, or start aiden-gadget.service)"
            ]
        }
        var lines = [
            boundUDC.map { "gadget \(name): up, bound to \($0)" }
                ?? "gadget \(name): created in \(gadgets) but not bound to a UDC (run aiden-board gadget up)"
        ]
        if let interface {
            let carrier = carrier.map { $0 ? "carrier" : "no carrier (no host on the cable)" } ?? "carrier unknown"
            let addresses = addresses.isEmpty ? "no address" : addresses.joined(separator: ", ")
            lines.append("interface: \(interface), \(carrier), \(addresses)")
        } else if boundUDC != nil {
            lines.append("interface: none named by the ECM function")
        }
        if deviceAddress != nil || hostAddress != nil {
            lines.append("board end: \(deviceAddress ?? "unknown"), host end: \(hostAddress ?? "unknown")")
        }
        return lines
    }
}
