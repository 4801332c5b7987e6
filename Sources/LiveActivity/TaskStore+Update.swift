import FoundationEssentials

extension TaskStore {
    /// Applies `patch` to task `id` (`PATCH /v1/tasks/{id}`).
    ///
    /// Refused with `.notFound` for an unknown id, `.conflict` when the task has ended or `expected_revision`
    /// is stale. Every accepted update is news from the agent (see `heartbeat`). A patch that changes nothing
    /// returns the task untouched (`durability == .unchanged`, no new revision, no Wake) unless the task was
    /// stale. Otherwise `updated_at` becomes `now`; entering needs_app or the handoff state records a
    /// transition and makes the change `.immediate`, anything else is `.lazy`.
    package mutating func update(id: String, patch: TaskPatch, now: Date) throws(TaskStoreError) -> TaskChange {
        do {
            try patch.validate()
        } catch {
            throw .invalid(error)
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
        guard candidate != current else {
            lastNews[id] = Timestamp.normalized(now)
            return TaskChange(snapshot: current, durability: .unchanged)
        }
        candidate.updatedAt = Timestamp.normalized(now)
        candidate.revision = revision + 1
        try Self.checkEncodedSize(candidate)
        lastNews[id] = candidate.updatedAt

        let events = commit(candidate, replacing: current, now: candidate.updatedAt)
        checkInvariants()
        return TaskChange(
            snapshot: snapshots[id] ?? candidate, durability: events.isEmpty ? .lazy : .immediate,
            transitions: events)
    }
}
