import FoundationEssentials

extension TaskStore {
    /// Applies `patch` to task `id` (`PATCH /v1/tasks/{id}`).
    ///
    /// Refused with `.notFound` for an unknown id, `.conflict` when the task has ended or `expected_revision`
    /// is stale. Every accepted update is news from the agent (see `heartbeat`). A patch that changes nothing
    /// returns the task untouched (`durability == .unchanged`, no new revision, no Wake) unless the task was
    /// stale. Otherwise `updated_at` becomes `now`; entering needs_app or the handoff state records a
    /// transition and makes the change `.immediate`, anything else is `.lazy`.
    ///
    /// With an `idempotencyKey` already used for this same update, returns the task as it now is, unchanged,
    /// without checking it again (the first update may have moved its revision on or been followed by its
    /// end); a key used for another write is a conflict. The record of an update that changed nothing stays
    /// in memory until the next change is written.
    package mutating func update(
        id: String, patch: TaskPatch, idempotencyKey: String? = nil, now: Date
    ) throws(TaskStoreError) -> TaskChange {
        do {
            try patch.validate()
            if let idempotencyKey {
                try IdempotencyRecord.validate(key: idempotencyKey)
            }
        } catch {
            throw .invalid(error)
        }
        let fingerprint = idempotencyKey == nil ? 0 : IdempotencyRecord.fingerprint(of: patch)
        if let existing = try replay(idempotencyKey, .update, requestID: id, fingerprint: fingerprint) {
            return TaskChange(snapshot: existing, durability: .unchanged)
        }
        guard let current = snapshots[id] else {
            throw .notFound(id: id)
        }
        guard current.status.isActive else {
            throw .conflict(
                "task \(TaskValidationError.quoted(id)) has ended (status \(current.status.rawValue)) and is final")
        }
        try Self.checkExpectedRevision(patch.expectedRevision, of: current)

        var candidate = patch.applied(to: current)
        do {
            try TaskField.checkStaleness(
                staleAfter: candidate.staleAfterSeconds, abandonAfter: candidate.abandonAfterSeconds)
        } catch {
            throw .invalid(error)
        }
        candidate.staleSince = nil
        // A new request for input: a done or refuse answered the last one; a stop stays.
        if candidate.isWaitingForPerson, !current.isWaitingForPerson, candidate.answer?.answer != .stop {
            candidate.answer = nil
        }
        guard candidate != current else {
            lastNews[id] = Timestamp.normalized(now)
            forgetAnchor(of: id)
            record(idempotencyKey, .update, requestID: id, fingerprint: fingerprint)
            checkInvariants()
            return TaskChange(snapshot: current, durability: .unchanged)
        }
        candidate.updatedAt = Timestamp.normalized(now)
        // The tool line's timer counts from when the line became what it says; a repeat keeps it running.
        if candidate.toolStatus != current.toolStatus {
            candidate.toolStartedAt = candidate.toolStatus.isEmpty ? nil : candidate.updatedAt
        }
        candidate.revision = revision + 1
        try Self.checkEncodedSize(candidate)
        lastNews[id] = candidate.updatedAt
        forgetAnchor(of: id)

        let events = commit(candidate, replacing: current, now: candidate.updatedAt)
        record(idempotencyKey, .update, requestID: id, fingerprint: fingerprint)
        checkInvariants()
        return TaskChange(
            snapshot: snapshots[id] ?? candidate, durability: events.isEmpty ? .lazy : .immediate,
            transitions: events)
    }
}
