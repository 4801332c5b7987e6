/// What `up` or `down` did, for the one line the command prints.
package enum GadgetReport: Equatable, Sendable, CustomStringConvertible {
    /// Written and bound now. `interface` is the network interface the kernel made (`usb0`),
    /// before udev renames it.
    case bound(udc: String, interface: String?, deviceAddress: MACAddress, hostAddress: MACAddress)
    case alreadyUp(udc: String)
    case removed(wasBound: Bool)
    case absent

    package var description: String {
        let gadget = GadgetSpec.gadgetName
        switch self {
        case let .bound(udc, interface, device, host):
            return "gadget \(gadget) bound to \(udc)" + (interface.map { ": interface \($0)" } ?? "")
                + " (board end \(device), host end \(host))"
        case let .alreadyUp(udc):
            return "gadget \(gadget) is already bound to \(udc): nothing to do"
        case let .removed(wasBound):
            return "gadget \(gadget) " + (wasBound ? "unbound and removed" : "removed")
        case .absent:
            return "gadget \(gadget) is not set up: nothing to do"
        }
    }
}
