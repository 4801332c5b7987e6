/// Where the controller looks: each path is injectable so tests run against a temporary tree.
package struct GadgetPaths: Equatable, Sendable {
    /// The configfs mount; the gadget lives in `<configfs>/usb_gadget/aiden`.
    package var configfs: String
    /// One entry per USB device controller.
    package var udcClass: String
    package var machineID: String

    package init(
        configfs: String = "/sys/kernel/config", udcClass: String = "/sys/class/udc",
        machineID: String = "/etc/machine-id"
    ) {
        self.configfs = configfs
        self.udcClass = udcClass
        self.machineID = machineID
    }

    /// `<configfs>/usb_gadget`.
    package var gadgets: String { configfs.hasSuffix("/") ? "\(configfs)usb_gadget" : "\(configfs)/usb_gadget" }

    /// The absolute path of a path relative to `usb_gadget/`.
    package func absolute(_ relative: String) -> String { "\(gadgets)/\(relative)" }
}
