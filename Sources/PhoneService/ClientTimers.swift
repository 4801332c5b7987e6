import Dispatch

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
        let nanoseconds = max(
            0,
            seconds.multipliedReportingOverflow(by: 1_000_000_000).partialValue
                + attoseconds / 1_000_000_000)
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds)), execute: work)
    }
}
