import FoundationEssentials
import LiveActivity
import NetworkAddress

/// Facts about the running daemon that the shell gathers and the routers report (`/status`,
/// `/api/bluetooth/status`). Plain values: the routers stay pure.
package struct BoardFacts: Sendable, Equatable {
    package var version: String
    /// Random per daemon start: lets a phone that cannot watch USB tell one board session from the next.
    package var instanceID: String
    package var uptimeSeconds: Int
    package var liveActivityEnabled: Bool
    package var retention: Duration
    package var wake: WakeFacts
    package var bluetooth: BluetoothFacts
    package var usb: USBLinkFacts
    /// What the phone last reported about its companion app (`POST /api/phone/app-state`), if anything.
    package var phoneApp: PhoneAppState?
    /// The board's own interface addresses: a pairing request from one of them comes from the board itself.
    /// Gathered only for that path (empty elsewhere); nil when they could not be read (the pairing is refused).
    package var boardAddresses: [IPAddress]?
    /// Which clock stamps the timestamps (`BoardClock`).
    package var clock: ClockFacts

    package init(
        version: String, instanceID: String = "", uptimeSeconds: Int, liveActivityEnabled: Bool,
        retention: Duration, wake: WakeFacts, bluetooth: BluetoothFacts, usb: USBLinkFacts,
        phoneApp: PhoneAppState? = nil, boardAddresses: [IPAddress]? = [], clock: ClockFacts = ClockFacts()
    ) {
        self.version = version
        self.instanceID = instanceID
        self.uptimeSeconds = uptimeSeconds
        self.liveActivityEnabled = liveActivityEnabled
        self.retention = retention
        self.wake = wake
        self.bluetooth = bluetooth
        self.usb = usb
        self.phoneApp = phoneApp
        self.boardAddresses = boardAddresses
        self.clock = clock
    }
}

/// The Wake side as seen by the board: what went out last and how.
package struct WakeFacts: Sendable, Equatable, Encodable {
    /// "bluez" or "loopback".
    package var transport: String
    package var lastSequence: UInt64?
    package var lastReason: String?
    package var lastAt: Date?
    /// Wakes sent since the daemon started, and changes merged into them by coalescing.
    package var sent: UInt64
    package var coalescedChanges: UInt64
    /// Wakes that did not go out: the transport refused them (not registered with bluetoothd, not on the bus, a
    /// socket error), or their sequence mark could not be made durable, so they were not sent. A Wake that no
    /// phone is subscribed to is sent, not a failure.
    package var sendFailures: UInt64

    package init(
        transport: String, lastSequence: UInt64? = nil, lastReason: String? = nil, lastAt: Date? = nil,
        sent: UInt64 = 0, coalescedChanges: UInt64 = 0, sendFailures: UInt64 = 0
    ) {
        self.transport = transport
        self.lastSequence = lastSequence
        self.lastReason = lastReason
        self.lastAt = lastAt
        self.sent = sent
        self.coalescedChanges = coalescedChanges
        self.sendFailures = sendFailures
    }

    enum CodingKeys: String, CodingKey {
        case transport, sent
        case lastSequence = "last_seq", lastReason = "last_reason", lastAt = "last_at"
        case coalescedChanges = "coalesced_changes", sendFailures = "send_failures"
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(transport, forKey: .transport)
        try container.encode(lastSequence, forKey: .lastSequence)
        try container.encode(lastReason, forKey: .lastReason)
        try container.encode(lastAt.map(Timestamp.format), forKey: .lastAt)
        try container.encode(sent, forKey: .sent)
        try container.encode(coalescedChanges, forKey: .coalescedChanges)
        try container.encode(sendFailures, forKey: .sendFailures)
    }
}

/// What the BlueZ peripheral knows, stated honestly: "registered" is not "on air".
package struct BluetoothFacts: Sendable, Equatable {
    package var adapter: String
    /// nil when unknown (loopback transport, or bluetoothd not reachable).
    package var adapterPresent: Bool?
    package var powered: Bool?
    package var bluezRunning: Bool?
    package var gattRegistered: Bool
    package var advertising: Bool
    package var wakeSubscriber: Bool
    package var address: String?
    /// Seconds until the pairing window closes; nil when it is closed.
    package var pairingClosesInSeconds: Int?
    /// What stands between the board and a working Wake link, in words (nil: nothing known).
    package var problem: String?

    package init(
        adapter: String, adapterPresent: Bool? = nil, powered: Bool? = nil, bluezRunning: Bool? = nil,
        gattRegistered: Bool = false, advertising: Bool = false, wakeSubscriber: Bool = false,
        address: String? = nil, pairingClosesInSeconds: Int? = nil, problem: String? = nil
    ) {
        self.adapter = adapter
        self.adapterPresent = adapterPresent
        self.powered = powered
        self.bluezRunning = bluezRunning
        self.gattRegistered = gattRegistered
        self.advertising = advertising
        self.wakeSubscriber = wakeSubscriber
        self.address = address
        self.pairingClosesInSeconds = pairingClosesInSeconds
        self.problem = problem
    }
}

/// The USB ECM link as the board sees it.
package struct USBLinkFacts: Sendable, Equatable, Encodable {
    /// "up", "down" or "unknown".
    package var link: String
    package var interface: String?

    package init(link: String, interface: String? = nil) {
        self.link = link
        self.interface = interface
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(link, forKey: .link)
        try container.encode(interface, forKey: .interface)
    }

    enum CodingKeys: String, CodingKey { case link, interface }
}
