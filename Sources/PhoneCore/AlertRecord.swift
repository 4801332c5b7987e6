import WireFormat

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

/// Reads the record's file (`json`). Decoding keeps the newest `capacity` distinct keys, so a hand-edited or
/// older file still loads.
extension AlertRecord: Decodable {
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
}

extension AlertRecord {
    /// The record's file: `{"capacity":512,"cursor":{…},"has_read_events":true,"keys":[{"epoch":…,"event_id":…,
    /// "generation":…,"subject":…,"transition":…}]}`, keys sorted, members that are nil left out, and
    /// `legacy_cursor` for a record first written by an older client.
    ///
    /// Written by hand into one buffer because it is saved after every change: JSONEncoder built a dictionary
    /// for each of up to 512 keys on every save, and the phone's heap kept the holes they left (bench/README.md,
    /// "Memory").
    package var json: [UInt8] {
        // Reserved once: the widest record without its text is 213 bytes and the widest key 112; only text
        // that needs escapes grows the buffer.
        let cursors = (cursor.generation?.utf8.count ?? 0) + (legacyCursor?.generation?.utf8.count ?? 0)
        let size = keys.reduce(213 + cursors) { $0 + 112 + $1.subject.utf8.count + ($1.generation?.utf8.count ?? 0) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        bytes.append(UInt8(ascii: "{"))
        bytes.appendMember(CodingKeys.capacity, number: UInt64(capacity))
        bytes.appendMember(CodingKeys.cursor) { cursor.appendJSON(to: &$0) }
        bytes.appendMember(CodingKeys.hasReadEvents) { $0.append(contentsOf: (hasReadEvents ? "true" : "false").utf8) }
        bytes.appendMember(CodingKeys.keys) { bytes in
            bytes.append(UInt8(ascii: "["))
            for (position, key) in keys.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                key.appendJSON(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        }
        if let legacyCursor {
            bytes.appendMember(CodingKeys.legacyCursor) { legacyCursor.appendJSON(to: &$0) }
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }
}

extension AlertKey {
    /// `{"epoch":…,"event_id":…,"generation":…,"subject":…,"transition":…}`, nil members left out.
    fileprivate func appendJSON(to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        bytes.appendMember(CodingKeys.epoch, number: epoch.map(UInt64.init))
        bytes.appendMember(CodingKeys.eventID, number: eventID)
        bytes.appendMember(CodingKeys.generation, string: generation)
        bytes.appendMember(CodingKeys.subject, string: subject)
        bytes.appendMember(CodingKeys.transition, string: transition.rawValue)
        bytes.append(UInt8(ascii: "}"))
    }
}

extension EventCursor {
    /// `{"epoch":…,"generation":…,"since":…}`, nil members left out.
    fileprivate func appendJSON(to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        bytes.appendMember(CodingKeys.epoch, number: epoch.map(UInt64.init))
        bytes.appendMember(CodingKeys.generation, string: generation)
        bytes.appendMember(CodingKeys.since, number: since)
        bytes.append(UInt8(ascii: "}"))
    }
}

extension [UInt8] {
    /// `"name":value` inside an object this buffer has opened, after a comma unless it is the first member;
    /// nothing when `value` is nil. The name is the member's `CodingKey`, the one the decoder reads, and
    /// needs no escaping.
    fileprivate mutating func appendMember(_ name: some CodingKey, number value: UInt64?) {
        guard let value else { return }
        appendMember(name) { $0.append(contentsOf: String(value).utf8) }
    }

    fileprivate mutating func appendMember(_ name: some CodingKey, string value: String?) {
        guard let value else { return }
        appendMember(name) { JSONString.append(value, to: &$0) }
    }

    /// The member's value is what `value` appends.
    fileprivate mutating func appendMember(_ name: some CodingKey, value: (inout [UInt8]) -> Void) {
        if last != UInt8(ascii: "{") { append(UInt8(ascii: ",")) }
        append(UInt8(ascii: "\""))
        append(contentsOf: name.stringValue.utf8)
        append(contentsOf: #"":"#.utf8)
        value(&self)
    }
}
