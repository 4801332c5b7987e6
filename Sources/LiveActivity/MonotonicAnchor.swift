import FoundationEssentials

/// Where one of a task's wall-clock stamps sits on the board's monotonic clock: its last news while it is
/// active, its `ended_at` once it ended. The store measures staleness and retention from `instant`, so a
/// wall clock that jumps (an NTP step, a clock set by hand, the phone's time taken over) moves no deadline.
/// Kept in memory only: after a restart the monotonic clock starts again, and `TaskStore.anchorClocks`
/// derives each anchor anew from the stamp and the wall clock of that moment.
struct MonotonicAnchor: Sendable, Hashable {
    /// The stamp this anchor is for; a new stamp (news, an end) needs a new anchor.
    var stamp: Date
    /// The monotonic instant of `stamp`.
    var instant: Duration
}
