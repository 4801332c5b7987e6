import FoundationEssentials

extension TaskStore {
    /// The task phone `phoneID` should show (CONTRACT §3): the most recently changed active task whose
    /// `phone_id` is `phoneID` or empty; else the most recently ended such task whose `ended_at` is less
    /// than `retention` before `now`; else nil. "Most recent" is by revision.
    package func current(forPhone phoneID: String, now: Date, retention: Duration) -> TaskSnapshot? {
        var bestActive: TaskSnapshot?
        var bestEnded: TaskSnapshot?
        for snapshot in snapshots.values where snapshot.isVisible(toPhone: phoneID) {
            if snapshot.status.isActive {
                if snapshot.revision > bestActive?.revision ?? 0 {
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
