import FoundationEssentials

/// `tasks.json`'s bytes: exactly what `LiveActivityJSON.makeEncoder()` writes for a `TaskStore`, made from pieces
/// kept between saves. The board writes its whole store on every durable change, dozens a second while an agent
/// starts and ends tasks, and a store holds up to `TaskStore.defaultCapacity` tasks and a ring of transitions:
/// encoding all of them each time was most of the board's CPU under such a burst, and that CPU is what the phone's
/// reads compete with on a small board. Here a task is encoded once per change to it, a transition and an
/// idempotency record once (each kept piece is reused only while its value is equal to the one it was made from),
/// and the rest, a few numbers and the news and ages of each task, is written by hand in the encoder's own form
/// (keys sorted by their UTF-8 bytes, `/` unescaped).
package struct TaskStoreEncoder {
    /// By request id, with the task they were made from. Not by revision alone: the board makes each change on a
    /// copy of its store and drops the copy when its save fails, so the next change to the same task takes the
    /// same revision with other content; only an equal task may reuse the bytes.
    private var tasks: [String: (value: TaskSnapshot, bytes: [UInt8])] = [:]
    private var events: [UInt64: (value: TransitionEvent, bytes: [UInt8])] = [:]
    private var records: [String: (value: IdempotencyRecord, bytes: [UInt8])] = [:]
    /// The keys of `elapsed` in the order written, kept while the store holds the same tasks.
    private var elapsedOrder: [String] = []

    package init() {}

    /// The store's JSON, as `LiveActivityJSON.makeEncoder().encode(store)` gives it.
    package mutating func encode(_ store: TaskStore) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(tasks.values.reduce(4_096) { $0 + $1.bytes.count + 1 })
        // The keys in the order `.sortedKeys` writes them: capacity, elapsed, format, idempotency, news,
        // revision, tasks, transitions.
        out += Array(#"{"capacity":\#(store.capacity),"#.utf8)
        if store.anchoredAt != nil {
            out += Array(#""elapsed":"#.utf8)
            let ages = store.anchorAges
            // The same tasks as last time, most often: their sorted order is kept too.
            if elapsedOrder.count != ages.count || !elapsedOrder.allSatisfy({ ages[$0] != nil }) {
                elapsedOrder = ages.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            }
            try writeObject(elapsedOrder, into: &out) { id, out in out += String(ages[id] ?? 0).utf8 }
            out.append(UInt8(ascii: ","))
        }
        out += Array(#""format":\#(TaskStore.format),"idempotency":"#.utf8)
        let sortedRecords = store.idempotencyRecords.values.sorted { $0.key < $1.key }
        try writeArray(sortedRecords, into: &out) { try Self.piece(of: $0, at: $0.key, in: &records) }
        if records.count > sortedRecords.count { Self.forget(in: &records) { store.idempotencyRecords[$0] == nil } }
        out += Array(#","news":"#.utf8)
        let newsOrder = store.lastNews.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        try writeObject(newsOrder, into: &out) { id, out in
            try Self.writeString(Timestamp.format(store.lastNews[id] ?? Date(timeIntervalSince1970: 0)), into: &out)
        }
        out += Array(#","revision":\#(store.revision),"tasks":"#.utf8)
        // Oldest first, by revision; only the changed tasks are encoded.
        let order = store.snapshots.map { (revision: $0.value.revision, id: $0.key) }.sorted {
            $0.revision < $1.revision
        }
        try writeArray(order, into: &out) { entry in
            guard let task = store.snapshots[entry.id] else { return [] }
            return try Self.piece(of: task, at: entry.id, in: &tasks) { snapshot in
                var bytes: [UInt8] = []
                try snapshot.appendJSON(to: &bytes)
                return bytes
            }
        }
        if tasks.count > order.count { Self.forget(in: &tasks) { store.snapshots[$0] == nil } }
        let ring = store.transitions
        out += Array(#","transitions":{"capacity":\#(ring.capacity),"events":"#.utf8)
        try writeArray(ring.events, into: &out) { try Self.piece(of: $0, at: $0.id, in: &events) }
        if events.count > ring.events.count {
            let ids = Set(ring.events.map(\.id))
            Self.forget(in: &events) { !ids.contains($0) }
        }
        out += Array(#","generation":"#.utf8)
        try Self.writeString(ring.generation, into: &out)
        out += Array(#","last_id":\#(ring.lastID)}}"#.utf8)
        return out
    }

    /// The kept bytes of `value`, or (when none are kept for `key`, or they were made from another value) its
    /// bytes encoded now (by the encoder, or by `encode`: a task's by hand, `TaskSnapshot.appendJSON`) and kept.
    private static func piece<Key: Hashable, Value: Encodable & Equatable>(
        of value: Value, at key: Key, in kept: inout [Key: (value: Value, bytes: [UInt8])],
        encode: (Value) throws -> [UInt8] = { try json($0) }
    ) throws -> [UInt8] {
        if let index = kept.index(forKey: key), kept.values[index].value == value { return kept.values[index].bytes }
        let bytes = try encode(value)
        kept[key] = (value, bytes)
        return bytes
    }

    /// Lets go of the pieces of what the store no longer holds. Every piece written is kept, so there are such only
    /// when more are kept than were written.
    private static func forget<Key: Hashable, Value>(in kept: inout [Key: Value], where gone: (Key) -> Bool) {
        for key in kept.keys.filter(gone) { kept[key] = nil }
    }

    private func writeArray<Element>(
        _ elements: [Element], into out: inout [UInt8], _ bytes: (Element) throws -> [UInt8]
    ) rethrows {
        out.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += try bytes(element)
        }
        out.append(UInt8(ascii: "]"))
    }

    /// A JSON object with `keys` in the order given (sorted by their UTF-8 bytes, as `.sortedKeys` sorts them),
    /// each value written by `value`.
    private func writeObject(
        _ keys: [String], into out: inout [UInt8], _ value: (String, inout [UInt8]) throws -> Void
    ) throws {
        out.append(UInt8(ascii: "{"))
        for (index, key) in keys.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            try Self.writeString(key, into: &out)
            out.append(UInt8(ascii: ":"))
            try value(key, &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// A string as the encoder writes it: one of plain characters (a request id, a timestamp) by hand.
    private static func writeString(_ text: String, into out: inout [UInt8]) throws {
        let plain = text.utf8.allSatisfy {
            $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
        }
        guard plain else {
            out += try json(text as any Encodable)
            return
        }
        out.append(UInt8(ascii: "\""))
        out += text.utf8
        out.append(UInt8(ascii: "\""))
    }

    private static func json(_ value: any Encodable) throws -> [UInt8] {
        Array(try LiveActivityJSON.makeEncoder().encode(value))
    }
}
