import WireFormat

/// The answer of `GET /api/live-activity/current?phone_id=P` (docs/protocol.md §3.3).
package enum CurrentAnswer: Sendable, Equatable {
    /// `{"status":"ok","live_activity":{…,"others":{…}}}`: the task this phone should show, and how many other
    /// tasks it may see are active and waiting (nil from a board that does not say, and on a task's own read).
    case snapshot(SnapshotView, others: OtherTasks? = nil)
    /// `{"status":"not_found"}`: nothing to show (no active task, no recently ended one).
    case notFound
}
