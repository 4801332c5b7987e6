/// Why the gadget could not be brought up or taken down, with what to do about it.
package enum GadgetError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `<configfs>/usb_gadget` is not a directory.
    case configfsMissing(path: String)
    /// No UDC asked for and none listed.
    case noUDC(classDirectory: String)
    case udcNotFound(String, available: [String])
    /// Someone else drives the UDC: another configfs gadget (named) or a legacy gadget module.
    case udcBusy(String, heldBy: String?)
    case invalidUDCName(String)
    case machineID(path: String, reason: String)
    /// configfs refused to make the ECM function: the kernel lacks it.
    case functionUnavailable(path: String)
    case fileSystem(GadgetFileError, hint: String?)

    /// 69 (EX_UNAVAILABLE) when the kernel or hardware cannot give us a gadget right now; 1 otherwise.
    package var exitCode: Int32 {
        switch self {
        case .configfsMissing, .noUDC, .udcNotFound, .udcBusy, .functionUnavailable: 69
        case .invalidUDCName, .machineID, .fileSystem: 1
        }
    }

    package var description: String {
        switch self {
        case let .configfsMissing(path):
            "configfs usb_gadget not found at \(path): load libcomposite (modprobe libcomposite) and mount configfs "
                + "(mount -t configfs none /sys/kernel/config)"
        case let .noUDC(directory):
            "no USB device controller: \(directory) is empty or missing; load the board's UDC driver "
                + "(e.g. dwc2 with dtoverlay=dwc2 on a Raspberry Pi; dummy_hcd for tests), or name one with --udc"
        case let .udcNotFound(name, available):
            "no USB device controller named \(name)"
                + (available.isEmpty ? " (none available)" : " (available: \(available.joined(separator: ", ")))")
        case let .udcBusy(name, holder?):
            "USB device controller \(name) is busy: gadget '\(holder)' is bound to it; "
                + "unbind it (echo \"\" > usb_gadget/\(holder)/UDC) or choose another with --udc"
        case let .udcBusy(name, nil):
            "USB device controller \(name) is busy: another gadget driver holds it "
                + "(a legacy module such as g_ether or g_serial? see lsmod); unload it or choose another with --udc"
        case let .invalidUDCName(name):
            "\"\(name)\" is not a UDC name (letters, digits, '.', '_', ':', '-'; not starting with '.')"
        case let .machineID(path, reason):
            "cannot derive the gadget's serial number and MAC addresses: \(path) \(reason)"
        case let .functionUnavailable(path):
            "cannot create \(path): the kernel has no USB ECM gadget function (modprobe usb_f_ecm; "
                + "CONFIG_USB_CONFIGFS_ECM)"
        case let .fileSystem(error, hint?):
            "\(error): \(hint)"
        case let .fileSystem(error, nil):
            "\(error)"
        }
    }
}
