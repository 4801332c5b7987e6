import FoundationEssentials

extension TaskStore {
    /// Starts a task (`POST /v1/tasks`).
    ///
    /// With an `idempotencyKey` already used for the same body, returns the task that start created, as it
    /// is now, with `durability == .unchanged` (not a new mutation); for a different body or another write
    /// it is a conflict.
    /// Without `draft.requestID` an id `chat_<16 hex digits>` is drawn from `generator`. A full store evicts
    /// the task that ended first; a store full of active tasks refuses with `.capacityExceeded`.
    package mutating func start(
        _ draft: TaskDraft, idempotencyKey: String?, now: Date, using generator: inout some RandomNumberGenerator
    ) throws(TaskStoreError) -> TaskChange {
        do {
            try draft.validate()
            if let idempotencyKey {
                try IdempotencyRecord.validate(key: idempotencyKey)
            }
        } catch {
            throw .invalid(error)
        }
        let fingerprint = idempotencyKey == nil ? 0 : IdempotencyRecord.fingerprint(of: draft)
        if let existing = try replay(idempotencyKey, .start, requestID: nil, fingerprint: fingerprint) {
            return TaskChange(snapshot: existing, durability: .unchanged)
        }
        let id: String
        if let requested = draft.requestID {
            id = requested
        } else {
            id = try uniqueGeneratedID(using: &generator)
        }
        if snapshots[id] != nil {
            throw .conflict("a task with request_id \(TaskValidationError.quoted(id)) already exists")
        }
        let time = Timestamp.normalized(now)
        let snapshot = draft.snapshot(requestID: id, now: time, revision: revision + 1)
        try Self.checkEncodedSize(snapshot)
        try makeRoom()

        let events = commit(snapshot, replacing: nil, now: time)
        record(idempotencyKey, .start, requestID: id, fingerprint: fingerprint)
        checkInvariants()
        return TaskChange(snapshot: snapshots[id] ?? snapshot, durability: .immediate, transitions: events)
    }

    /// `chat_` and 16 lowercase hex digits, redrawn on the (astronomically rare) clash with a stored id.
    private func uniqueGeneratedID(
        using generator: inout some RandomNumberGenerator
    ) throws(TaskStoreError)
        -> String
    {
        for _ in 0..<8 {
            let digits = String(generator.next(), radix: 16)
            let id = "chat_" + String(repeating: "0", count: 16 - digits.count) + digits
            if snapshots[id] == nil {
                return id
            }
        }
        throw .conflict("could not generate an unused request_id; pass one in the request")
    }

    /// Evicts the task that ended first when the store is full.
    private mutating func makeRoom() throws(TaskStoreError) {
        guard snapshots.count >= capacity else { return }
        let ended = snapshots.values.filter { $0.status.isTerminal }
        guard let oldest = ended.min(by: { $0.revision < $1.revision }) else {
            throw .capacityExceeded(capacity: capacity)
        }
        removeTask(id: oldest.requestID)
    }
}
