/// How the phone host is connected to the board: the USB ECM link carries HTTP, the Wake transport
/// (BLE or loopback) carries Wakes.
package struct LinkState: Sendable, Equatable {
    package enum USB: String, Sendable, Equatable, CaseIterable {
        case up
        case down
        /// Not watched (loopback development setup: HTTP goes to 127.0.0.1, there is no cable).
        case unmonitored
    }

    package enum Wake: String, Sendable, Equatable, CaseIterable {
        /// Subscribed to the Wake characteristic (or listening on the loopback socket).
        case connected
        /// Looking for the board or subscribing.
        case connecting
        case disconnected
    }

    package var usb: USB
    package var wake: Wake
    /// The current USB session's connection event id, while the link is up.
    package var connectionID: String?

    package init(usb: USB, wake: Wake, connectionID: String? = nil) {
        self.usb = usb
        self.wake = wake
        self.connectionID = connectionID
    }
}
