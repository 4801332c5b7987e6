import Dispatch
import FoundationEssentials

/// Runs work later: the client's one timer (retry, safety refetch) goes through this seam so tests
/// fire it by hand instead of sleeping.
package protocol ClientTimers: Sendable {
    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void)
}

/// Timers on a Dispatch queue: idle means idle, nothing polls.
package struct DispatchClientTimers: ClientTimers {
    private let queue: DispatchQueue

    package init(label: String = "aiden.phone.timers") {
        queue = DispatchQueue(label: label)
    }

    package func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) {
        let (seconds, attoseconds) = delay.components
        let nanoseconds = max(0, seconds.multipliedReportingOverflow(by: 1_000_000_000).partialValue
            + attoseconds / 1_000_000_000)
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds)), execute: work)
    }
}

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
