import FoundationEssentials

extension TaskStore {
    /// Ends task `id` with a terminal status (`POST /v1/tasks/{id}/end`); `ended_at` and `updated_at`
    /// become `now`.
    ///
    /// Ending is final. Repeating an end with the same status (and the same or no `last_error`) returns the
    /// ended task unchanged, so a retried end succeeds; `expected_revision` is not checked on that repeat,
    /// because the first end moved the revision on. Any other end of an ended task is a conflict.
    package mutating func end(id: String, _ end: TaskEnd, now: Date) throws(TaskStoreError) -> TaskChange {
        do {
            try end.validate()
        } catch {
            throw .invalid(error)
        }
        guard let current = snapshots[id] else {
            throw .notFound(id: id)
        }
        if current.status.isTerminal {
            if current.status == end.status, end.lastError == nil || end.lastError == current.lastError {
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
        candidate.revision = revision + 1
        try Self.checkEncodedSize(candidate)

        let events = commit(candidate, replacing: current, now: time)
        checkInvariants()
        return TaskChange(snapshot: snapshots[id] ?? candidate, durability: .immediate, transitions: events)
    }
}
