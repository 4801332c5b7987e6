import Testing

@testable import BoardAPI

@Suite struct RefusalLogTests {
    /// The real-stack sequence that once left a line out: an outsider refused four times on two addresses, a
    /// refusal at link-up, then a process on the board. Every new peer is named.
    @Test func oneOutsidersRepeatsDoNotHideTheNextPeer() {
        var log = RefusalLog(firstBurst: 8, repeatBurst: 1, interval: .seconds(10))
        let table: [(String, TokenBucket.Outcome)] = [
            ("10.77.0.2", .allowed(suppressedBefore: 0)), ("10.77.0.2", .allowed(suppressedBefore: 0)),
            ("fd77::2", .allowed(suppressedBefore: 0)), ("fd77::2", .suppressed),
            ("192.168.42.2", .allowed(suppressedBefore: 1)), ("10.77.0.2", .suppressed),
            ("192.168.42.1", .allowed(suppressedBefore: 1)),
        ]
        for (index, (peer, expected)) in table.enumerated() {
            #expect(log.take(peer: peer, at: .milliseconds(index)) == expected, "refusal \(index) from \(peer)")
        }
    }

    /// (time in s, peer, outcome): the repeats of one peer refill at the interval; a flood of one peer stays
    /// within its bucket and leaves the first-refusal bucket whole.
    @Test func aFloodFromOnePeerIsLimitedAndCountsWhatItDropped() {
        var log = RefusalLog(firstBurst: 3, repeatBurst: 2, interval: .seconds(10))
        let table: [(Int, String, TokenBucket.Outcome)] = [
            (0, "a", .allowed(suppressedBefore: 0)), (0, "a", .allowed(suppressedBefore: 0)),
            (0, "a", .allowed(suppressedBefore: 0)), (1, "a", .suppressed), (2, "a", .suppressed),
            (3, "b", .allowed(suppressedBefore: 2)), (4, "c", .allowed(suppressedBefore: 0)),
            (5, "d", .suppressed), (10, "a", .allowed(suppressedBefore: 1)), (11, "a", .suppressed),
        ]
        for (seconds, peer, expected) in table {
            #expect(log.take(peer: peer, at: .seconds(seconds)) == expected, "at \(seconds) s from \(peer)")
        }
    }

    /// A peer cycling its addresses is always "new": it spends only the first-refusal bucket, and the table of
    /// recent peers stays bounded, forgetting the oldest first.
    @Test func cyclingAddressesSpendsOnlyTheFirstRefusalBucket() {
        var log = RefusalLog(firstBurst: 3, repeatBurst: 1, interval: .seconds(10), remembered: 2)
        #expect(log.take(peer: "x", at: .zero) == .allowed(suppressedBefore: 0))
        var allowed = 0
        for index in 0..<1000 {
            if case .allowed = log.take(peer: "cycle-\(index)", at: .milliseconds(index)) { allowed += 1 }
        }
        #expect(allowed == 2)
        // "x" was forgotten (only two peers are remembered), so it is new again: no first-refusal token left.
        #expect(log.take(peer: "x", at: .seconds(1)) == .suppressed)
        // A repeat of a peer still remembered draws on the untouched repeat bucket.
        #expect(log.take(peer: "x", at: .seconds(2)) == .allowed(suppressedBefore: 999))
    }
}
