import FoundationEssentials
import LiveActivity

/// The health answers: `/status` (and the agent socket's `/v1/status`) and `/api/bluetooth/status`.
/// They change with time (uptime), not only with the store, so their ETag is a digest of the bytes.
enum BoardStatusBody {
    static func status(facts: BoardFacts, store: TaskStore, epoch: UInt16, request: HTTPRequest) -> HTTPResponse {
        let body = statusBytes(facts: facts, store: store, epoch: epoch)
        return Responses.json(200, body, etag: ETag.digest(body), request: request)
    }

    static func statusBytes(facts: BoardFacts, store: TaskStore, epoch: UInt16) -> [UInt8] {
        JSONBody.okDocument([
            "version": facts.version,
            "instance_id": facts.instanceID,
            "uptime_seconds": facts.uptimeSeconds,
            "epoch": epoch,
            "live_activity": LiveActivityFacts(
                enabled: facts.liveActivityEnabled,
                retentionSeconds: Int(facts.retention.components.seconds)),
            "tasks": TaskCounts(
                total: store.count, active: store.activeCount, storeRevision: store.revision),
            "wake": facts.wake,
            "usb": facts.usb,
            "phone_app": OptionalBox(value: facts.phoneApp),
            "bluetooth": BluetoothSummary(facts: facts.bluetooth),
            "clock": facts.clock,
        ])
    }

    static func bluetooth(facts: BoardFacts, epoch: UInt16, request: HTTPRequest) -> HTTPResponse {
        let bluetooth = facts.bluetooth
        let body = JSONBody.okDocument([
            "transport": facts.wake.transport,
            "adapter": bluetooth.adapter,
            "adapter_present": OptionalBox(value: bluetooth.adapterPresent),
            "address": OptionalBox(value: bluetooth.address),
            "bluez_running": OptionalBox(value: bluetooth.bluezRunning),
            "powered": OptionalBox(value: bluetooth.powered),
            "gatt_registered": bluetooth.gattRegistered,
            "advertising": bluetooth.advertising,
            "wake_subscriber": bluetooth.wakeSubscriber,
            "pairing": PairingStatus(closesInSeconds: bluetooth.pairingClosesInSeconds),
            "problem": OptionalBox(value: bluetooth.problem),
            "last_wake_seq": OptionalBox(value: facts.wake.lastSequence),
            "last_wake_reason": OptionalBox(value: facts.wake.lastReason),
            "last_wake_at": OptionalBox(value: facts.wake.lastAt.map(Timestamp.format)),
            "epoch": epoch,
        ])
        return Responses.json(200, body, etag: ETag.digest(body), request: request)
    }
}

/// Encodes nil as JSON `null` instead of leaving the key out: the shape stays the same for scripts.
private struct OptionalBox<Wrapped: Encodable & Sendable>: Encodable, Sendable {
    let value: Wrapped?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}

/// The Bluetooth side in `/status` (and `/v1/status`, which `aiden-board doctor` reads): registered, advertised,
/// subscribed, and what is wrong.
private struct BluetoothSummary: Encodable, Sendable {
    let facts: BluetoothFacts

    enum CodingKeys: String, CodingKey {
        case adapter, problem, advertising
        case bluezRunning = "bluez_running"
        case gattRegistered = "gatt_registered"
        case wakeSubscriber = "wake_subscriber"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(facts.adapter, forKey: .adapter)
        try container.encode(facts.bluezRunning, forKey: .bluezRunning)
        try container.encode(facts.gattRegistered, forKey: .gattRegistered)
        try container.encode(facts.advertising, forKey: .advertising)
        try container.encode(facts.wakeSubscriber, forKey: .wakeSubscriber)
        try container.encode(facts.problem, forKey: .problem)
    }
}

/// `{"open": false}` or `{"open": true, "closes_in_seconds": 42}`.
private struct PairingStatus: Encodable, Sendable {
    let closesInSeconds: Int?

    enum CodingKeys: String, CodingKey {
        case open
        case closesInSeconds = "closes_in_seconds"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(closesInSeconds != nil, forKey: .open)
        try container.encodeIfPresent(closesInSeconds, forKey: .closesInSeconds)
    }
}

private struct LiveActivityFacts: Encodable, Sendable {
    let enabled: Bool
    let retentionSeconds: Int

    enum CodingKeys: String, CodingKey {
        case enabled
        case retentionSeconds = "retention_seconds"
    }
}

private struct TaskCounts: Encodable, Sendable {
    let total: Int
    let active: Int
    let storeRevision: UInt64

    enum CodingKeys: String, CodingKey {
        case total, active
        case storeRevision = "store_revision"
    }
}
