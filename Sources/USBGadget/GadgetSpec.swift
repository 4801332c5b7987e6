/// The gadget the board presents: one configuration with one CDC ECM function. A plain value
/// built from the configuration and the machine's identity; `entries` lays it out as configfs
/// wants it.
package struct GadgetSpec: Equatable, Sendable {
    /// `usb_gadget/aiden`.
    package static let gadgetName = "aiden"
    package static let configurationName = "c.1"
    package static let functionName = "ecm.usb0"
    /// US English, the only language hosts are sure to ask for.
    package static let language = "0x409"

    package var vendorID: UInt16
    package var productID: UInt16
    /// `bcdDevice`: the gadget's own release, 1.00.
    package var deviceRelease: UInt16 = 0x0100
    /// `bcdUSB`: USB 2.0, what ECM needs and every UDC speaks.
    package var usbRelease: UInt16 = 0x0200
    package var manufacturer = "AidenBridge"
    package var product = "Aiden board"
    package var serialNumber: String
    package var configurationLabel = "ECM network"
    /// `MaxPower` in mA, as the host budgets it.
    package var maxPowerMilliamps = 250
    package var deviceAddress: MACAddress
    package var hostAddress: MACAddress

    package init(vendorID: UInt16, productID: UInt16, identity: GadgetIdentity) {
        self.vendorID = vendorID
        self.productID = productID
        serialNumber = identity.serialNumber
        deviceAddress = identity.deviceAddress
        hostAddress = identity.hostAddress
    }

    /// The directories, attribute values and link that make the gadget, in creation order,
    /// with paths relative to `usb_gadget/`. Binding (writing `UDC`) is not an entry: it comes last,
    /// once everything here holds.
    package var entries: [GadgetEntry] {
        let gadget = Self.gadgetName
        let strings = "\(gadget)/strings/\(Self.language)"
        let configuration = "\(gadget)/configs/\(Self.configurationName)"
        let function = "\(gadget)/functions/\(Self.functionName)"
        return [
            .directory(gadget),
            .attribute("\(gadget)/idVendor", Self.hex(vendorID)),
            .attribute("\(gadget)/idProduct", Self.hex(productID)),
            .attribute("\(gadget)/bcdDevice", Self.hex(deviceRelease)),
            .attribute("\(gadget)/bcdUSB", Self.hex(usbRelease)),
            .directory(strings),
            .attribute("\(strings)/manufacturer", manufacturer),
            .attribute("\(strings)/product", product),
            .attribute("\(strings)/serialnumber", serialNumber),
            .directory(configuration),
            .attribute("\(configuration)/MaxPower", String(maxPowerMilliamps)),
            .directory("\(configuration)/strings/\(Self.language)"),
            .attribute("\(configuration)/strings/\(Self.language)/configuration", configurationLabel),
            .directory(function),
            .attribute("\(function)/dev_addr", deviceAddress.description),
            .attribute("\(function)/host_addr", hostAddress.description),
            .link("\(configuration)/\(Self.functionName)", target: function),
        ]
    }

    /// `0x1d6b`: how the kernel prints these attributes back, so a read compares equal.
    static func hex(_ value: UInt16) -> String {
        "0x" + [UInt8(value >> 8), UInt8(value & 0xff)].map(\.lowercaseHex).joined()
    }
}

/// One piece of the gadget's configfs tree; paths are relative to `usb_gadget/`.
package enum GadgetEntry: Equatable, Sendable {
    case directory(String)
    /// An attribute file and the value it must hold (written with a trailing newline, as `echo` does).
    case attribute(String, String)
    /// A symbolic link at the first path pointing to the item at `target`.
    case link(String, target: String)
}
