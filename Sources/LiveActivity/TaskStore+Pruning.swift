import FoundationEssentials

extension TaskStore {
    /// Removes ended tasks whose retention is over (and their idempotency records), returning their ids,
    /// oldest first. A change when anything is removed: the revision goes up (answers such as the task list
    /// differ), the write may be lazy, and no Wake is needed (the phone no longer shows those tasks).
    @discardableResult
    package mutating func prune(now: Date, retention: Duration) -> [String] {
        let expired = snapshots.values
            .filter { Self.isExpired($0, now: now, retention: retention) }
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

    /// When the next ended task expires, so the shell can arm one timer instead of polling.
    package func nextExpiry(retention: Duration) -> Date? {
        snapshots.values.compactMap { $0.endedAt?.addingTimeInterval(retention.seconds) }.min()
    }
}
