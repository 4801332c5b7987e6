import FoundationEssentials

/// The two clocks the client reads: monotonic time for the scheduler, wall time for `at` in events.
package protocol ClientClock: Sendable {
    /// Time since an arbitrary fixed origin; never goes backwards.
    func monotonicNow() -> Duration
    func wallNow() -> Date
}

package struct SystemClientClock: ClientClock {
    private let origin = ContinuousClock.now

    package init() {}

    package func monotonicNow() -> Duration { ContinuousClock.now - origin }

    package func wallNow() -> Date { Date() }
}
