/// Members `/api/live-activity/current` writes beside the snapshot's own (`SnapshotKey`) in its `live_activity`
/// object (docs/protocol.md §3.3): only that answer carries them.
package enum CurrentKey: String, CodingKey, CaseIterable, Sendable {
    /// `{"active":N,"waiting":M}`: how many other tasks the phone may see are active and waiting for the person.
    case others
}
