import PhoneCore

/// What a Wake source reports.
package enum WakeSourceEvent: Sendable, Equatable {
    /// A received value: a BLE notification (or read) of the Wake characteristic, or a loopback
    /// datagram. `fullLength` is its size before any truncation; the session drops values that are
    /// not exactly 12 bytes.
    case value([UInt8], fullLength: Int)
    /// Subscribed (`connected`), looking or resubscribing (`connecting`), or gone (`disconnected`), with
    /// what stands in the way in words (`detail`: "pairing with the board … over the USB cable"), for the
    /// card. Each transition to `connected` makes the client fetch: Wakes may have been missed meanwhile.
    case state(LinkState.Wake, detail: String? = nil)
}

/// Facts for logs and status.
package struct WakeSourceFacts: Sendable, Equatable {
    /// `loopback` or `bluez`.
    package var transport: String
    /// Where it listens or whom it follows: `127.0.0.1:47800`, a Bluetooth address.
    package var endpoint: String?
    /// Values received since start.
    package var received: UInt64

    package init(transport: String, endpoint: String? = nil, received: UInt64 = 0) {
        self.transport = transport
        self.endpoint = endpoint
        self.received = received
    }
}

/// Why a Wake source could not start.
package struct WakeSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}

/// Something that delivers Wakes: the loopback UDP receiver (`LoopbackWakeSource`) or the BlueZ central
/// (`BlueZWakeSource`: discover the board by the Wake service UUID, connect, subscribe to the characteristic,
/// resubscribe after `org.bluez` restarts).
package protocol WakeSource: Sendable {
    /// Starts delivering: the loopback source from a thread of its own, the BlueZ one from the runtime (its
    /// executor, or for a lost bus the queue its bus calls run on).
    /// Throws when it cannot start at all (the loopback port in use; the BlueZ source reports a missing bus or
    /// adapter later, as `.state` events, like all later trouble). Deliveries must not block for long.
    func start(deliver: @escaping @Sendable (WakeSourceEvent) -> Void) throws(WakeSourceError)
    /// Stops delivering; returns when no delivery is running or will run.
    func stop()
    var facts: WakeSourceFacts { get }
    /// The board's USB device arrived (the cable is plugged in): a source that bonds over the cable tries a
    /// waiting bond now. Returns at once.
    func cableArrived()
}

extension WakeSource {
    package func cableArrived() {}
}
