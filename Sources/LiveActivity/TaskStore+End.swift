import FoundationEssentials

extension TaskStore {
    /// Ends task `id` with a terminal status (`POST /v1/tasks/{id}/end`); `ended_at` and `updated_at`
    /// become `now`, and `dismiss_after_seconds` is the end's (nil: the board's retention).
    ///
    /// Ending is final, and clears the person's `answer` (a stop it honoured, a done it no longer waits for).
    /// Repeating an end with the same status (and the same or no `last_error` and
    /// `dismiss_after_seconds`) returns the
    /// ended task unchanged, so a retried end succeeds; `expected_revision` is not checked on that repeat,
    /// because the first end moved the revision on. Any other end of an ended task is a conflict.
    ///
    /// With an `idempotencyKey` already used for this same end, returns the task as it now is; a key used for
    /// another write is a conflict. Only the end that ends the task files its key; ending drops the task's
    /// update records.
    package mutating func end(
        id: String, _ end: TaskEnd, idempotencyKey: String? = nil, now: Date
    ) throws(TaskStoreError) -> TaskChange {
        do {
            try end.validate()
            if let idempotencyKey {
                try IdempotencyRecord.validate(key: idempotencyKey)
            }
        } catch {
            throw .invalid(error)
        }
        let fingerprint = idempotencyKey == nil ? 0 : IdempotencyRecord.fingerprint(of: end)
        if let existing = try replay(idempotencyKey, .end, requestID: id, fingerprint: fingerprint) {
            return TaskChange(snapshot: existing, durability: .unchanged)
        }
        guard let current = snapshots[id] else {
            throw .notFound(id: id)
        }
        if current.status.isTerminal {
            if current.status == end.status, end.lastError == nil || end.lastError == current.lastError,
                end.dismissAfterSeconds == nil || end.dismissAfterSeconds == current.dismissAfterSeconds
            {
                return TaskChange(snapshot: current, durability: .unchanged)
            }
            throw .conflict(
                "task \(TaskValidationError.quoted(id)) has already ended with status \(current.status.rawValue)")
        }
        try Self.checkExpectedRevision(end.expectedRevision, of: current)

        let time = Timestamp.normalized(now)
        var candidate = current
        candidate.status = end.status
        candidate.lastError = end.lastError ?? current.lastError
        candidate.updatedAt = time
        candidate.endedAt = time
        candidate.dismissAfterSeconds = end.dismissAfterSeconds
        candidate.answer = nil  // an ended task waits for no answer
        // What an ended card says (as the Aiden profile publishes it): nothing left to stop, no bar, done
        // with the work, and no tool running.
        candidate.canStop = false
        candidate.showsProgress = false
        candidate.progress = 1
        candidate.toolStatus = ""
        candidate.toolStartedAt = nil
        candidate.revision = revision + 1
        try Self.checkEncodedSize(candidate)

        let events = commit(candidate, replacing: current, now: time)
        forgetUpdateRecords(of: id)
        record(idempotencyKey, .end, requestID: id, fingerprint: fingerprint)
        checkInvariants()
        return TaskChange(snapshot: snapshots[id] ?? candidate, durability: .immediate, transitions: events)
    }
}
