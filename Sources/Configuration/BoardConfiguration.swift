import NetworkAddress

/// Everything `aiden-board` reads from `/etc/aiden/board.toml` (docs/configuration.md).
///
/// Every key is optional: a missing key keeps its value from `defaults`, so an empty file and
/// the seed file (`[live_activity] enabled = true`) both give a working board.
package struct BoardConfiguration: Equatable, Sendable {
    /// `[live_activity]`
    package struct LiveActivity: Equatable, Sendable {
        package var enabled = true
        /// How long an ended task stays "current" for its phone.
        package var retentionSeconds = 600
    }

    /// `[http]`
    package struct HTTP: Equatable, Sendable {
        package var listen = [SocketEndpoint(address: IPAddress(v4: 192, 168, 42, 1), port: 8080)]
        /// Peers outside these blocks are answered 403 when they connect; loopback (and the board's own addresses) only when
        /// a listener is on loopback.
        package var allowedSubnets = [BoardConfiguration.ecmSubnet]
        /// The ECM link's interface: connections to a non-loopback listener that arrive on another are refused.
        /// nil (written `""`): any interface.
        package var interface: String? = "aiden0"
    }

    /// `[wake]`
    package struct Wake: Equatable, Sendable {
        package var transport = WakeTransport.bluez
        /// Where the loopback transport sends its UDP datagrams.
        package var loopbackTarget = SocketEndpoint(address: IPAddress(v4: 127, 0, 0, 1), port: 47800)
        /// At most one Wake per window of this length.
        package var coalesceMilliseconds = 750
        package var adapter = "hci0"
        /// BlueZ GATT characteristic flags of the Wake characteristic; always includes `notify`.
        package var characteristicFlags = ["encrypt-read", "notify"]
    }

    /// `[agent]`
    package struct Agent: Equatable, Sendable {
        package var socket = "/run/aiden/agent.sock"
    }

    /// `[gadget]`: the USB ECM gadget the board presents to the phone host.
    package struct Gadget: Equatable, Sendable {
        package var vendorID: UInt16 = 0x1d6b
        package var productID: UInt16 = 0x0104
        /// nil (written `udc = ""`): the first entry of /sys/class/udc.
        package var udc: String? = nil
    }

    /// `[state]`
    package struct State: Equatable, Sendable {
        package var directory = "/var/lib/aiden-board"
    }

    package var liveActivity = LiveActivity()
    package var http = HTTP()
    package var wake = Wake()
    package var agent = Agent()
    package var gadget = Gadget()
    package var state = State()
    /// `[log]`, as for the phone.
    package var log = LogConfiguration()

    /// The configuration of a board whose file sets nothing.
    package static let defaults = BoardConfiguration()

    /// The USB ECM link's subnet, the default for `http.allowed_subnets`.
    package static let ecmSubnet: Subnet = {
        do {
            return try Subnet("192.168.42.0/24")
        } catch {
            preconditionFailure("the constant ECM subnet literal does not parse: \(error)")
        }
    }()

    /// Flags BlueZ accepts for a local GATT characteristic (org.bluez.GattCharacteristic, Flags).
    package static let knownCharacteristicFlags = [
        "broadcast", "read", "write-without-response", "write", "notify", "indicate",
        "authenticated-signed-writes", "extended-properties", "reliable-write", "writable-auxiliaries",
        "encrypt-read", "encrypt-write", "encrypt-notify", "encrypt-indicate",
        "encrypt-authenticated-read", "encrypt-authenticated-write", "encrypt-authenticated-notify",
        "encrypt-authenticated-indicate", "secure-read", "secure-write", "secure-notify", "secure-indicate",
        "authorize",
    ]

    private init() {}
}
