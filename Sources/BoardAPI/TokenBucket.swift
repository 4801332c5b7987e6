/// A token bucket with time passed in: lets a shell log "403 from 10.0.0.7" without letting a
/// flood of refused requests flood the journal. Allows `burst` events at once, then one per
/// `interval`; `suppressed` counts what was dropped so the next allowed line can report it.
package struct TokenBucket: Sendable, Equatable {
    package let burst: Int
    package let interval: Duration
    private var tokens: Int
    private var lastRefill: Duration?
    package private(set) var suppressed: Int = 0

    package init(burst: Int, interval: Duration) {
        precondition(burst > 0 && interval > .zero, "a bucket needs room and a refill rate")
        self.burst = burst
        self.interval = interval
        self.tokens = burst
    }

    /// Takes a token if one is available at `now` (monotonic). When it returns `.allowed(n)`,
    /// n events were suppressed since the previous allowed one.
    package mutating func take(at now: Duration) -> Outcome {
        refill(at: now)
        guard tokens > 0 else {
            suppressed += 1
            return .suppressed
        }
        tokens -= 1
        defer { suppressed = 0 }
        return .allowed(suppressedBefore: suppressed)
    }

    package enum Outcome: Equatable, Sendable {
        case allowed(suppressedBefore: Int)
        case suppressed
    }

    private mutating func refill(at now: Duration) {
        guard let last = lastRefill else {
            lastRefill = now
            return
        }
        guard now > last else { return }
        let earned = Int((now - last) / interval)
        guard earned > 0 else { return }
        tokens = min(burst, tokens + earned)
        lastRefill = tokens == burst ? now : last + interval * earned
    }
}
