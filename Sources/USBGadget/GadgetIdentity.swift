/// What makes this board's gadget recognisably the same across boots, derived from
/// /etc/machine-id with HMAC-SHA-256 under fixed labels (the machine id itself is never shown).
///
/// A random MAC would make the host see a new interface at every boot; a stable one keeps the
/// interface name, its networkd configuration and any firewall rules. Both addresses carry the
/// fixed prefix `a1:de` after a locally administered unicast first byte, `02` for the board's
/// end and `06` for the host's end, so udev rules can recognise an Aiden gadget by its address
/// (`udev/70-aiden-gadget.rules`) without knowing the machine id.
package struct GadgetIdentity: Equatable, Sendable {
    /// `strings/0x409/serialnumber`: 16 upper-case hex digits.
    package var serialNumber: String
    /// `functions/ecm.usb0/dev_addr`: the board's end of the link (the gadget's `usb0`).
    package var deviceAddress: MACAddress
    /// `functions/ecm.usb0/host_addr`: the host's end (its cdc_ether interface).
    package var hostAddress: MACAddress

    /// First byte and prefix of the board's end, `02:a1:de:…`.
    package static let deviceAddressPrefix: [UInt8] = [0x02, 0xa1, 0xde]
    /// First byte and prefix of the host's end, `06:a1:de:…`.
    package static let hostAddressPrefix: [UInt8] = [0x06, 0xa1, 0xde]

    package init(serialNumber: String, deviceAddress: MACAddress, hostAddress: MACAddress) {
        self.serialNumber = serialNumber
        self.deviceAddress = deviceAddress
        self.hostAddress = hostAddress
    }

    package init(machineID: MachineID) {
        func keyed(_ label: String) -> [UInt8] { SHA256.hmac(key: machineID.bytes, message: Array(label.utf8)) }
        serialNumber = keyed("aiden-usb-serial").prefix(8).map(\.lowercaseHex).joined().uppercased()
        deviceAddress = Self.address(prefix: Self.deviceAddressPrefix, tail: keyed("aiden-ecm-dev"))
        hostAddress = Self.address(prefix: Self.hostAddressPrefix, tail: keyed("aiden-ecm-host"))
    }

    private static func address(prefix: [UInt8], tail: [UInt8]) -> MACAddress {
        guard let address = MACAddress(bytes: prefix + tail.prefix(6 - prefix.count)) else {
            preconditionFailure("a 3-byte prefix and a 32-byte digest always give six bytes")
        }
        return address
    }
}
