/// One change to the configfs tree, as the planner decides it and the controller performs it.
/// Paths are relative to `usb_gadget/`.
package enum GadgetStep: Equatable, Sendable, CustomStringConvertible {
    case makeDirectory(String)
    case write(String, String)
    case makeLink(String, target: String)
    case removeLink(String)
    case removeDirectory(String)
    /// Write the UDC name to `<gadget>/UDC`: the host sees the device.
    case bind(gadget: String, udc: String)
    /// Write an empty line to `<gadget>/UDC`: the device leaves the bus.
    case unbind(gadget: String)

    package var description: String {
        switch self {
        case let .makeDirectory(path): "mkdir \(path)"
        case let .write(path, value): "write \(path) \(value)"
        case let .makeLink(path, target): "ln -s \(target) \(path)"
        case let .removeLink(path): "rm \(path)"
        case let .removeDirectory(path): "rmdir \(path)"
        case let .bind(gadget, udc): "write \(gadget)/UDC \(udc)"
        case let .unbind(gadget): "write \(gadget)/UDC (empty)"
        }
    }
}
