import FoundationEssentials

/// Staleness and retention follow elapsed time, not the wall clock (docs/task-store.md, "Time"). The shell
/// passes the wall-clock `now` (for stamps people read) and the monotonic `instant` beside it; deadlines come
/// back as monotonic instants, which is what the shell's timers take.
extension TaskStore {
    /// Gives every task stamp that has none an anchor on the monotonic clock. A stamp that news or an end made
    /// since the last call (its anchor was forgotten then) sits at `instant`, whatever its value; a task loaded
    /// from disk continues from the age the file recorded (`MonotonicAnchor.Restored`), and only one from a file
    /// older than that is placed `now - stamp` before `instant` (never after it: a stamp ahead of the wall clock
    /// counts as made now). The shell calls it at start, after every change and before every write.
    package mutating func anchorClocks(now: Date, instant: Duration) {
        var anchors: [String: MonotonicAnchor] = [:]
        for (id, snapshot) in snapshots {
            guard let stamp = Self.clockStamp(of: snapshot, news: lastNews[id]) else { continue }
            if let kept = monotonicAnchors[id], kept.stamp == stamp {
                anchors[id] = kept
                continue
            }
            let age: Duration
            switch restoredAnchors[id] {
            case let .elapsed(elapsed)?: age = elapsed
            case .wallClock?: age = Self.duration(seconds: max(0, now.timeIntervalSince(stamp)))
            case nil: age = .zero
            }
            anchors[id] = MonotonicAnchor(stamp: stamp, instant: instant - age)
        }
        monotonicAnchors = anchors
        restoredAnchors = [:]
        anchoredAt = instant
    }

    /// News or an end came: the task's clock stamp starts again at the next `anchorClocks`.
    mutating func forgetAnchor(of id: String) {
        monotonicAnchors[id] = nil
        restoredAnchors[id] = nil
    }

    /// Each anchored task's age at the last `anchorClocks`, in whole milliseconds, for the state file.
    var anchorAges: [String: Int64] {
        guard let anchoredAt else { return [:] }
        return monotonicAnchors.mapValues { anchor in
            let (seconds, attoseconds) = (anchoredAt - anchor.instant).components
            return max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        }
    }

    /// The stamp a task's clock decisions are measured from: its last news while active, its end after.
    static func clockStamp(of snapshot: TaskSnapshot, news: Date?) -> Date? {
        snapshot.status.isActive ? news : snapshot.endedAt
    }

    /// Seconds from `stamp` (task `id`'s clock stamp) to the moment (`now`, `instant`): on the monotonic clock
    /// when the stamp is anchored, else by the wall clock (a store no shell anchored, such as a test's).
    func elapsed(since stamp: Date, of id: String, now: Date, instant: Duration?) -> Double {
        if let instant, let anchor = monotonicAnchors[id], anchor.stamp == stamp {
            return Double((instant - anchor.instant).components.seconds)
                + Double((instant - anchor.instant).components.attoseconds) / 1e18
        }
        return now.timeIntervalSince(stamp)
    }

    /// The monotonic instant `seconds` after task `id`'s clock `stamp`, seen from (`now`, `instant`).
    func deadline(after seconds: Double, from stamp: Date, of id: String, now: Date, instant: Duration) -> Duration {
        instant + Self.duration(seconds: seconds - elapsed(since: stamp, of: id, now: now, instant: instant))
    }

    /// Whole milliseconds, the stamps' precision; negative values are kept.
    static func duration(seconds: Double) -> Duration {
        guard seconds.isFinite else { return .zero }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
