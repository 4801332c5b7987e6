import FoundationEssentials

extension TaskStore {
    /// The task phone `phoneID` should show (docs/protocol.md §3.4): the most recently changed active task whose
    /// `phone_id` is `phoneID` or empty, one with news before a stale one (marking a task stale gives it a
    /// new revision, which must not put it ahead of a live task); else the most recently ended such task
    /// whose `ended_at` is less than `retention` before `now`; else nil. "Most recent" is by revision.
    package func current(forPhone phoneID: String, now: Date, retention: Duration) -> TaskSnapshot? {
        var bestActive: TaskSnapshot?
        var bestEnded: TaskSnapshot?
        for snapshot in snapshots.values where snapshot.isVisible(toPhone: phoneID) {
            if snapshot.status.isActive {
                if bestActive.map({ Self.liveness(snapshot) > Self.liveness($0) }) ?? true {
                    bestActive = snapshot
                }
            } else if !Self.isExpired(snapshot, now: now, retention: retention),
                snapshot.revision > bestEnded?.revision ?? 0
            {
                bestEnded = snapshot
            }
        }
        return bestActive ?? bestEnded
    }

    /// Orders active tasks for the card: with news first, then by revision.
    private static func liveness(_ snapshot: TaskSnapshot) -> (Int, UInt64) {
        (snapshot.staleSince == nil ? 1 : 0, snapshot.revision)
    }

    /// An ended task expires at exactly `ended_at + retention`: shown before that instant, pruned from it.
    static func isExpired(_ snapshot: TaskSnapshot, now: Date, retention: Duration) -> Bool {
        guard let endedAt = snapshot.endedAt else { return false }
        return now >= endedAt.addingTimeInterval(retention.seconds)
    }
}

extension Duration {
    /// Whole and fractional seconds; negative durations count as zero.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return max(0, Double(seconds) + Double(attoseconds) / 1e18)
    }
}
