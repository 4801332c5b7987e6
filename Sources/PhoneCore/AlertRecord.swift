/// The persisted memory of the alert policy: which alerts were already given (bounded: the oldest
/// keys are dropped first) and the events cursor, so a restarted client neither repeats alerts nor
/// rereads the whole ring. Saved by the caller after every change.
package struct AlertRecord: Sendable, Equatable {
    package static let defaultCapacity = 512

    /// Most keys kept. Larger than the board's ring (256), so a full reread never repeats an alert.
    package let capacity: Int
    /// Oldest first.
    package private(set) var keys: [AlertKey]
    private var index: Set<AlertKey>
    package var cursor: EventCursor
    /// Whether an events answer was ever taken in; false means a first start (see `AlertPolicy`).
    package var hasReadEvents: Bool
    /// Set when the record was written by a client that keyed task alerts by
    /// `(epoch, request id, transition)`: the cursor it had then. That client read every event up to it,
    /// so those events count as given (`covers(_:)`) whatever their keys say; later ones are keyed by
    /// their event id.
    package var legacyCursor: EventCursor?

    package init(capacity: Int = AlertRecord.defaultCapacity) {
        self.capacity = max(1, capacity)
        self.keys = []
        self.index = []
        self.cursor = EventCursor()
        self.hasReadEvents = false
        self.legacyCursor = nil
    }

    package func contains(_ key: AlertKey) -> Bool { index.contains(key) }

    /// Whether the alert for `key` (a task key with an event id) was given: recorded, or read by the
    /// older client this record came from (at or before its cursor, in its epoch).
    package func covers(_ key: AlertKey) -> Bool {
        if contains(key) { return true }
        guard let legacy = legacyCursor, let eventID = key.eventID, let epoch = key.epoch else { return false }
        let sameRing = legacy.epoch.map { $0 == epoch } ?? true
        let sameGeneration = legacy.generation.flatMap { known in key.generation.map { $0 == known } } ?? true
        return sameRing && sameGeneration && eventID <= legacy.since
    }

    /// Records `key`; false if it was already recorded.
    @discardableResult
    package mutating func insert(_ key: AlertKey) -> Bool {
        guard index.insert(key).inserted else { return false }
        keys.append(key)
        if keys.count > capacity {
            let dropped = keys.count - capacity
            for old in keys.prefix(dropped) { index.remove(old) }
            keys.removeFirst(dropped)
        }
        return true
    }
}

/// `{"capacity":512,"cursor":{…},"has_read_events":true,"keys":[{"epoch":…,"event_id":…,"subject":…,"transition":…}]}`,
/// and `legacy_cursor` for a record first written by an older client.
/// Decoding keeps the newest `capacity` distinct keys, so a hand-edited or older file still loads.
extension AlertRecord: Codable {
    enum CodingKeys: String, CodingKey {
        case capacity
        case keys
        case cursor
        case hasReadEvents = "has_read_events"
        case legacyCursor = "legacy_cursor"
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(capacity: try container.decodeIfPresent(Int.self, forKey: .capacity) ?? Self.defaultCapacity)
        for key in try container.decode([AlertKey].self, forKey: .keys) {
            insert(key)
        }
        cursor = try container.decodeIfPresent(EventCursor.self, forKey: .cursor) ?? EventCursor()
        hasReadEvents = try container.decodeIfPresent(Bool.self, forKey: .hasReadEvents) ?? !keys.isEmpty
        legacyCursor = try container.decodeIfPresent(EventCursor.self, forKey: .legacyCursor)
        // Written before task alerts were keyed by event id: what it read up to counts as given.
        if legacyCursor == nil, keys.contains(where: { $0.transition != .connected && $0.eventID == nil }) {
            legacyCursor = cursor
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(capacity, forKey: .capacity)
        try container.encode(keys, forKey: .keys)
        try container.encode(cursor, forKey: .cursor)
        try container.encode(hasReadEvents, forKey: .hasReadEvents)
        try container.encodeIfPresent(legacyCursor, forKey: .legacyCursor)
    }
}
