/// Retry delays that double from `base` up to `cap`: 1 s, 2 s, 4 s … for the first, second, third failure.
/// The one rule for every retry (the phone's fetches, bus reconnections, bluetoothd's steps, the phone's
/// search). Deterministic (no jitter): one phone talks to one board, one daemon to one bluetoothd and one
/// dbus-daemon; there is no herd to spread.
package struct Backoff: Sendable, Equatable {
    package var base: Duration
    package var cap: Duration

    package init(base: Duration, cap: Duration) {
        self.base = base
        self.cap = max(cap, base)
    }

    /// The wait after `failures` consecutive failures (1 or more; 0 is treated as 1).
    package func delay(afterFailures failures: Int) -> Duration {
        var delay = base
        var remaining = max(failures, 1) - 1
        while remaining > 0 && delay < cap {
            delay *= 2
            remaining -= 1
        }
        return min(delay, cap)
    }
}
