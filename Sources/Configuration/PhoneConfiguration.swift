import NetworkAddress

/// Everything `aiden-phone` reads from its TOML file (docs/configuration.md).
package struct PhoneConfiguration: Equatable, Sendable {
    /// `[board]`
    package struct Board: Equatable, Sendable {
        package var url = BoardURL(host: .address(IPAddress(v4: 192, 168, 42, 1)), port: 8080)
        /// The phone host's end of the ECM link: requests to a board that is not on loopback leave through it
        /// alone (SO_BINDTODEVICE), so another network in the same subnet never answers for the board. nil
        /// (written `""`): wherever the routing table sends them.
        package var interface: String? = "aidenboard0"
    }

    /// `[wake]`
    package struct Wake: Equatable, Sendable {
        package var transport = WakeTransport.bluez
        /// Where the loopback transport receives UDP Wake datagrams.
        package var loopbackListen = SocketEndpoint(address: IPAddress(v4: 127, 0, 0, 1), port: 47800)
        package var adapter = "hci0"
        /// The board's Bluetooth address, upper case; nil (written `""`): find it by the Wake service UUID.
        package var address: String? = nil
    }

    /// `[usb]`: how the phone host recognises the board's ECM gadget.
    package struct USB: Equatable, Sendable {
        package var vendorID: UInt16 = 0x1d6b
        package var productID: UInt16 = 0x0104
    }

    /// `[phone]`
    package struct Phone: Equatable, Sendable {
        /// nil (written `""`): generated once and persisted by the executable.
        package var id: String? = nil
    }

    /// `[state]`
    package struct State: Equatable, Sendable {
        /// nil (written `""`): the standard place for whoever runs aiden-phone (`PhonePaths`):
        /// `/var/lib/aiden-phone` as root or in the system unit, `~/.local/state/aiden-phone` for a person.
        package var directory: String? = nil
    }

    package var board = Board()
    package var wake = Wake()
    package var usb = USB()
    package var phone = Phone()
    package var state = State()
    /// `[log]`, as for the board.
    package var log = LogConfiguration()

    package static let defaults = PhoneConfiguration()

    /// The environment variable that overrides `phone.id`.
    package static let phoneIDVariable = "LIVE_ACTIVITY_PHONE_ID"

    private init() {}
}
