/// The budget of the board's refusal lines: one peer's flood must not hide another peer's refusal.
///
/// A single bucket let an outsider's four 403s spend the burst, so the next peer refused (a process on
/// the board, a phone on the wrong interface) left no line at all, and that line is the one an operator
/// looks for. So a peer's first refusal draws on its own bucket (`firstBurst`, then one per `interval`),
/// and a repeat from a peer refused recently draws on another (`repeatBurst`, then one per `interval`).
/// "Recently" is the last `remembered` distinct peers, oldest forgotten first: bounded, so a peer cycling
/// its addresses only ever spends the first-refusal bucket. Time is passed in (monotonic).
package struct RefusalLog: Sendable, Equatable {
    private var first: TokenBucket
    private var repeats: TokenBucket
    /// Peers refused recently, the most recent last.
    private var recent: [String] = []
    private let remembered: Int
    /// Refusals not logged since the last line that was.
    package private(set) var suppressed = 0

    package init(firstBurst: Int = 8, repeatBurst: Int = 5, interval: Duration = .seconds(10), remembered: Int = 64) {
        precondition(remembered > 0, "a refusal log remembers at least one peer")
        first = TokenBucket(burst: firstBurst, interval: interval)
        repeats = TokenBucket(burst: repeatBurst, interval: interval)
        self.remembered = remembered
    }

    /// Whether the refusal of `peer` at `now` gets a line; `.allowed(n)` when it does, n being the refusals
    /// of any peer left unlogged since the previous line.
    package mutating func take(peer: String, at now: Duration) -> TokenBucket.Outcome {
        let seen = recent.firstIndex(of: peer)
        if let seen { recent.remove(at: seen) } else if recent.count == remembered { recent.removeFirst() }
        recent.append(peer)
        let outcome = seen == nil ? first.take(at: now) : repeats.take(at: now)
        guard case .allowed = outcome else {
            suppressed += 1
            return .suppressed
        }
        defer { suppressed = 0 }
        return .allowed(suppressedBefore: suppressed)
    }
}
