import FoundationEssentials

/// Where one of a task's wall-clock stamps sits on the board's monotonic clock: its last news while it is
/// active, its `ended_at` once it ended. The store measures staleness, abandonment, retention and dismissal from
/// `instant`, so a wall clock that jumps (an NTP step, a clock set by hand, the phone's time taken over) or
/// stands still (stamps clamped at 9999-12-31) moves no deadline. A new anchor comes with every piece of news and
/// with the end, never from comparing stamps (two pieces of news may carry the same stamp). What a restart keeps
/// is each anchor's age on the monotonic clock when the store was written (`elapsed` in the state file), never the
/// wall clock's opinion of it.
struct MonotonicAnchor: Sendable, Hashable {
    /// The stamp this anchor is for.
    var stamp: Date
    /// The monotonic instant of `stamp`.
    var instant: Duration

    /// How a task loaded from disk gets its anchor at the first `anchorClocks` after the load.
    enum Restored: Sendable, Hashable {
        /// Its age when the file was written: the restarted board continues from there (time the board was down
        /// is not counted, and no wall clock is asked).
        case elapsed(Duration)
        /// A file written before ages were kept: derived once from the stamp and the wall clock at start.
        case wallClock
    }
}
