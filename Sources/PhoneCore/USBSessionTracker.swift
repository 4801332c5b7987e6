/// Turns hotplug arrivals and departures of the board's VID:PID into USB link sessions. Pure, so the
/// odd event orders libusb allows are tested as tables: with `LIBUSB_HOTPLUG_ENUMERATE` an arrival
/// may be reported twice, and a departure may come for a device whose arrival never was.
///
/// One session at a time: the first matching device is the link. A second matching device (two
/// boards plugged in) is kept as a spare and becomes the link when the first one leaves.
package struct USBSessionTracker: Sendable, Equatable {
    /// What changed for the phone.
    package enum Change: Sendable, Equatable {
        /// A new session began; `connectionID` is new for every enumeration of the device.
        case linkUp(connectionID: String)
        /// The session's device left.
        case linkDown(connectionID: String)
    }

    /// The device carrying the current session, nil while the link is down.
    package private(set) var current: USBDeviceLocation?
    /// Other matching devices present, in arrival order.
    package private(set) var spares: [USBDeviceLocation] = []

    package init() {}

    package var isUp: Bool { current != nil }

    package mutating func arrived(_ device: USBDeviceLocation) -> [Change] {
        guard current != device, !spares.contains(device) else { return [] }
        guard current == nil else {
            spares.append(device)
            return []
        }
        current = device
        return [.linkUp(connectionID: device.connectionID)]
    }

    package mutating func departed(_ device: USBDeviceLocation) -> [Change] {
        if let index = spares.firstIndex(of: device) {
            spares.remove(at: index)
            return []
        }
        guard current == device else { return [] }
        current = nil
        var changes: [Change] = [.linkDown(connectionID: device.connectionID)]
        if !spares.isEmpty {
            let next = spares.removeFirst()
            current = next
            changes.append(.linkUp(connectionID: next.connectionID))
        }
        return changes
    }
}
