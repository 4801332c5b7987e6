/// Whether the phone host can watch the board's USB presence.
package enum USBMonitoring: Sendable, Equatable, CustomStringConvertible {
    /// Hotplug events for the board's VID:PID will be delivered (arrivals of devices already plugged
    /// in are delivered at once).
    case monitoring
    /// Nothing will be delivered; `reason` says why (no hotplug support, libusb could not start, no
    /// usbfs in this container, …). The client then names connections after the board instance.
    case unmonitored(reason: String)

    package var description: String {
        switch self {
        case .monitoring: "monitoring"
        case let .unmonitored(reason): "unmonitored (\(reason))"
        }
    }
}
