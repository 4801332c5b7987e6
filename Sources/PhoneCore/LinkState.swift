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
    /// What stands between the phone and a working Wake link, in words ("pairing with the board … over the
    /// USB cable", "no Bluetooth adapter hci0 …"); nil when connected or when there is nothing to say.
    package var wakeDetail: String?
    /// The current USB session's connection event id, while the link is up.
    package var connectionID: String?

    package init(usb: USB, wake: Wake, wakeDetail: String? = nil, connectionID: String? = nil) {
        self.usb = usb
        self.wake = wake
        self.wakeDetail = wakeDetail
        self.connectionID = connectionID
    }
}
