/// The state file's content: `{"format":1,"revision":…,"capacity":…,"tasks":[…],"idempotency":[…],
/// "transitions":{…},"news":{"id":"time",…},"elapsed":{"id":milliseconds,…}}`, tasks oldest first; a store written
/// before `news` existed takes each active task's `updated_at` as its last news. `elapsed` is each task's age on the
/// monotonic clock (since its last news while active, since its end after) when the file was written: a restart
/// continues from it, so no wall-clock change can freeze, jump or replay a deadline across it; a file without it
/// (older boards) has its ages derived once from the wall clock. Decoding ignores unknown keys and refuses a store that breaks
/// its invariants, so a damaged file is reported rather than served.
extension TaskStore: Codable {
    static let format = 1

    enum CodingKeys: String, CodingKey {
        case format
        case revision
        case capacity
        case tasks
        case idempotency
        case transitions
        case news
        case elapsed
    }

    /// An age read back is kept within 0 and 100 years (a hand-edited file), in milliseconds.
    static let maxRestoredAge: Int64 = 100 * 366 * 86_400 * 1000

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let format = try container.decodeIfPresent(Int.self, forKey: .format) ?? Self.format
        guard format == Self.format else {
            throw DecodingError.dataCorruptedError(
                forKey: .format, in: container, debugDescription: "unsupported task store format \(format)")
        }
        // Never above the default, which bounds the task list's size: a (hand-edited) file asking for more is
        // read as asking for the default, and one holding more tasks than that is refused below as inconsistent.
        capacity = min(
            max(1, try container.decodeIfPresent(Int.self, forKey: .capacity) ?? Self.defaultCapacity),
            Self.defaultCapacity)
        revision = try container.decode(UInt64.self, forKey: .revision)
        transitions = try container.decode(TransitionLog.self, forKey: .transitions)
        let tasks = try container.decode([TaskSnapshot].self, forKey: .tasks)
        snapshots = Dictionary(tasks.map { ($0.requestID, $0) }, uniquingKeysWith: { first, _ in first })
        if snapshots.count != tasks.count {
            throw DecodingError.dataCorruptedError(
                forKey: .tasks, in: container, debugDescription: "two tasks share a request_id")
        }
        let records = try container.decodeIfPresent([IdempotencyRecord].self, forKey: .idempotency) ?? []
        idempotencyRecords = Dictionary(records.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let news = try container.decodeIfPresent([String: String].self, forKey: .news) ?? [:]
        lastNews = [:]
        monotonicAnchors = [:]
        for (id, snapshot) in snapshots where snapshot.status.isActive {
            lastNews[id] = news[id].flatMap(Timestamp.parse) ?? snapshot.updatedAt
        }
        let ages = try container.decodeIfPresent([String: Int64].self, forKey: .elapsed) ?? [:]
        restoredAnchors = snapshots.mapValues { snapshot in
            ages[snapshot.requestID].map { .elapsed(.milliseconds(min(max(0, $0), Self.maxRestoredAge))) }
                ?? .wallClock
        }
        anchoredAt = nil
        if let problem = consistencyProblems().first {
            throw DecodingError.dataCorruptedError(
                forKey: .tasks, in: container, debugDescription: "inconsistent task store: \(problem)")
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.format, forKey: .format)
        try container.encode(revision, forKey: .revision)
        try container.encode(capacity, forKey: .capacity)
        try container.encode(snapshots.values.sorted { $0.revision < $1.revision }, forKey: .tasks)
        try container.encode(idempotencyRecords.values.sorted { $0.key < $1.key }, forKey: .idempotency)
        try container.encode(transitions, forKey: .transitions)
        try container.encode(lastNews.mapValues(Timestamp.format), forKey: .news)
        if anchoredAt != nil { try container.encode(anchorAges, forKey: .elapsed) }
    }
}
