import FoundationEssentials

/// The two clocks the board reads: wall time for timestamps in snapshots, monotonic time for the
/// coalescer and uptime. Injected so engine tests run on a hand-driven clock.
package protocol BoardClock: Sendable {
    func wallNow() -> Date
    /// Time since an arbitrary fixed origin; never goes backwards.
    func monotonicNow() -> Duration
}

/// The real clocks.
package struct SystemBoardClock: BoardClock {
    private let origin = ContinuousClock.now

    package init() {}

    package func wallNow() -> Date { Date() }

    package func monotonicNow() -> Duration { ContinuousClock.now - origin }
}
