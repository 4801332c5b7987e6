import FoundationEssentials
import WireFormat

extension TaskStore {
    /// The task phone `phoneID` should show first (docs/protocol.md §3.4), among the tasks it may see (`phone_id` its own or empty),
    /// and how many others it may see are active and waiting. Order: waiting for the person (a handoff or
    /// `needs_app`), then active with news, then active stale, then ended and still shown (`isShown`); within
    /// each, the most recently changed first, by revision, which follows the order of changes and not the wall
    /// clock. Among waiting tasks too one with news goes first: marking a task stale gives it a new revision,
    /// which must not put it ahead of a live one. nil when nothing is shown.
    package func selection(
        forPhone phoneID: String, now: Date, instant: Duration? = nil, retention: Duration
    ) -> PhoneSelection {
        var best: (rank: (Int, UInt64), snapshot: TaskSnapshot)?
        var active = 0
        var waiting = 0
        for snapshot in snapshots.values where snapshot.isVisible(toPhone: phoneID) {
            let rank: (Int, UInt64)
            if snapshot.status.isActive {
                let fresh = snapshot.staleSince == nil
                if snapshot.isWaitingForPerson {
                    waiting += 1
                    rank = (fresh ? 4 : 3, snapshot.revision)
                } else {
                    active += 1
                    rank = (fresh ? 2 : 1, snapshot.revision)
                }
            } else if isShown(snapshot, now: now, instant: instant, retention: retention) {
                rank = (0, snapshot.revision)
            } else {
                continue
            }
            if best.map({ rank > $0.rank }) ?? true { best = (rank, snapshot) }
        }
        guard let chosen = best?.snapshot else { return PhoneSelection(current: nil, others: OtherTasks()) }
        if chosen.status.isActive {
            if chosen.isWaitingForPerson { waiting -= 1 } else { active -= 1 }
        }
        return PhoneSelection(current: chosen, others: OtherTasks(active: active, waiting: waiting))
    }

    /// The task phone `phoneID` should show first (`selection(forPhone:…).current`).
    package func current(
        forPhone phoneID: String, now: Date, instant: Duration? = nil, retention: Duration
    ) -> TaskSnapshot? {
        selection(forPhone: phoneID, now: now, instant: instant, retention: retention).current
    }

    /// The first moment, by the wall clock and on the monotonic clock (nil without `instant`), at which an ended
    /// task shown at (`now`, `instant`) may leave the card by its dismissal time, a millisecond early so rounding
    /// never makes it late; nil when no ended task is shown. Before both, `selection(forPhone:…)` gives every phone
    /// what it gives at `now`: only a change to the store moves it.
    package func firstShownEnd(now: Date, instant: Duration?, retention: Duration) -> (wall: Date, instant: Duration?)?
    {
        var wall: Date?
        var monotonic: Duration?
        for snapshot in snapshots.values where snapshot.status.isTerminal {
            guard let endedAt = snapshot.endedAt, isShown(snapshot, now: now, instant: instant, retention: retention)
            else { continue }
            let after = Self.dismissAfter(snapshot, retention: retention)
            let end = endedAt.addingTimeInterval(after - 0.001)
            wall = min(wall ?? end, end)
            if let instant {
                let deadline =
                    deadline(after: after, from: endedAt, of: snapshot.requestID, now: now, instant: instant)
                    - .milliseconds(1)
                monotonic = min(monotonic ?? deadline, deadline)
            }
        }
        return wall.map { ($0, monotonic) }
    }

    /// Whether an ended task is still on the card: not dismissed by the person, and less than its dismissal
    /// time (`dismissAfter`) since it ended. Active tasks are always shown.
    func isShown(_ snapshot: TaskSnapshot, now: Date, instant: Duration?, retention: Duration) -> Bool {
        guard snapshot.status.isTerminal else { return true }
        return snapshot.dismissedAt == nil && !isExpired(snapshot, now: now, instant: instant, retention: retention)
    }

    /// Seconds after its end that an ended task leaves the card and the store: the agent's
    /// `dismiss_after_seconds`, never more than the board's retention.
    static func dismissAfter(_ snapshot: TaskSnapshot, retention: Duration) -> Double {
        min(Double(snapshot.dismissAfterSeconds ?? Int.max), retention.seconds)
    }
}

extension Duration {
    /// Whole and fractional seconds; negative durations count as zero.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return max(0, Double(seconds) + Double(attoseconds) / 1e18)
    }
}
