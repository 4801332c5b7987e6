import Dispatch

/// Runs work later. The engine's timers (coalescer deadline, lazy persistence, retention expiry)
/// go through this seam so tests can fire them by hand instead of sleeping.
package protocol TimerScheduler: Sendable {
    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void)
}

/// Timers on one serial Dispatch queue: idle means idle, nothing polls.
package struct DispatchTimerScheduler: TimerScheduler {
    private let queue: DispatchQueue

    package init(label: String = "aiden.board.timers") {
        queue = DispatchQueue(label: label)
    }

    package func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) {
        let nanoseconds = max(
            0, delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000)
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds)), execute: work)
    }
}
