import FoundationEssentials

extension TaskStore {
    /// Removes ended tasks whose dismissal time is over (`dismiss_after_seconds`, at most the retention) and
    /// their idempotency records, returning their ids, oldest first. So the store keeps exactly what the card
    /// may still show, plus tasks the person dismissed (hidden from the card at once, still readable by id until
    /// their time is over). A change when anything is removed: the revision goes up (answers such as the task
    /// list differ), the write may be lazy, and the shell sends a Wake (the card changes).
    @discardableResult
    package mutating func prune(now: Date, instant: Duration? = nil, retention: Duration) -> [String] {
        let expired = snapshots.values
            .filter { isExpired($0, now: now, instant: instant, retention: retention) }
            .sorted { $0.revision < $1.revision }
            .map(\.requestID)
        guard !expired.isEmpty else { return [] }
        revision += 1
        for id in expired {
            removeTask(id: id)
        }
        checkInvariants()
        return expired
    }

    /// When the next ended task's time is over, on the monotonic clock, so the shell can arm one timer instead
    /// of polling.
    package func nextExpiry(now: Date, instant: Duration, retention: Duration) -> Duration? {
        snapshots.values.compactMap { snapshot -> Duration? in
            guard let endedAt = snapshot.endedAt else { return nil }
            return deadline(
                after: Self.dismissAfter(snapshot, retention: retention), from: endedAt, of: snapshot.requestID,
                now: now, instant: instant)
        }.min()
    }

    /// An ended task expires at exactly its end plus its dismissal time: shown before that instant, pruned
    /// from it.
    func isExpired(_ snapshot: TaskSnapshot, now: Date, instant: Duration?, retention: Duration) -> Bool {
        guard let endedAt = snapshot.endedAt else { return false }
        return elapsed(since: endedAt, of: snapshot.requestID, now: now, instant: instant)
            >= Self.dismissAfter(snapshot, retention: retention)
    }
}
