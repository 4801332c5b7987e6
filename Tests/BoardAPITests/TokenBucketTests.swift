import Testing

@testable import BoardAPI

@Suite struct TokenBucketTests {
    /// (time in ms, expected outcome) for a bucket of 3 refilling one token per second.
    @Test func timeline() {
        var bucket = TokenBucket(burst: 3, interval: .seconds(1))
        let table: [(Int, TokenBucket.Outcome)] = [
            (0, .allowed(suppressedBefore: 0)), (1, .allowed(suppressedBefore: 0)), (2, .allowed(suppressedBefore: 0)),
            (3, .suppressed), (500, .suppressed), (999, .suppressed),
            (1000, .allowed(suppressedBefore: 3)), (1001, .suppressed),
            (2000, .allowed(suppressedBefore: 1)),
            (10_000, .allowed(suppressedBefore: 0)), (10_001, .allowed(suppressedBefore: 0)),
            (10_002, .allowed(suppressedBefore: 0)), (10_003, .suppressed),
        ]
        for (milliseconds, expected) in table {
            #expect(bucket.take(at: .milliseconds(milliseconds)) == expected, "at \(milliseconds) ms")
        }
    }

    @Test func aClockGoingBackwardsEarnsNothing() {
        var bucket = TokenBucket(burst: 1, interval: .seconds(1))
        #expect(bucket.take(at: .seconds(10)) == .allowed(suppressedBefore: 0))
        #expect(bucket.take(at: .seconds(5)) == .suppressed)
        #expect(bucket.take(at: .seconds(11)) == .allowed(suppressedBefore: 1))
    }

    @Test func aSustainedFloodIsLimitedToTheRefillRate() {
        var bucket = TokenBucket(burst: 5, interval: .milliseconds(100))
        var allowed = 0
        for step in 0..<10_000 {  // 10 s of one event per millisecond
            if case .allowed = bucket.take(at: .milliseconds(step)) { allowed += 1 }
        }
        #expect(allowed == 5 + 99)
    }
}
