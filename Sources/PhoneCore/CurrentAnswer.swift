import WireFormat

/// The answer of `GET /api/live-activity/current?phone_id=P` (docs/protocol.md §3.3).
package enum CurrentAnswer: Sendable, Equatable {
    /// `{"status":"ok","live_activity":{…}}`: the task this phone should show.
    case snapshot(SnapshotView)
    /// `{"status":"not_found"}`: nothing to show (no active task, no recently ended one).
    case notFound
}
