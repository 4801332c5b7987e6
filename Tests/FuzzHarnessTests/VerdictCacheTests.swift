import FuzzHarnesses
import Testing

/// The harnesses keep the verdicts of checks that depend on bytes alone; a kept verdict must only ever be
/// returned for equal bytes.
@Suite struct VerdictCacheTests {
    /// One slot, so that every key lands in it.
    let cache = VerdictCache<Int>(slots: 1, bytesEach: 4)

    func verdict(_ key: [UInt8], computing value: Int) -> (verdict: Int, computed: Bool) {
        var computed = false
        let verdict = try? cache.verdict(for: key) { () throws(InvariantViolation) in
            computed = true
            return value
        }
        return (verdict ?? -1, computed)
    }

    @Test func equalBytesGetTheKeptVerdict() {
        #expect(verdict([1, 2], computing: 1) == (1, true))
        #expect(verdict([1, 2], computing: 2) == (1, false))
        #expect(verdict([], computing: 3) == (3, true))
        #expect(verdict([], computing: 4) == (3, false))
    }

    @Test func otherBytesInTheSameSlotAreComputed() {
        #expect(verdict([1, 2], computing: 1) == (1, true))
        #expect(verdict([1, 3], computing: 2) == (2, true))
        #expect(verdict([1, 2, 0], computing: 3) == (3, true))
        #expect(verdict([1, 2], computing: 4) == (4, true))
    }

    @Test func bytesLongerThanASlotAreNeverKept() {
        #expect(verdict([1, 2, 3, 4, 5], computing: 1) == (1, true))
        #expect(verdict([1, 2, 3, 4, 5], computing: 2) == (2, true))
    }

    @Test func aBrokenInvariantIsNotKept() {
        #expect(throws: InvariantViolation.self) {
            try cache.verdict(for: [9]) { () throws(InvariantViolation) -> Int in throw InvariantViolation("no") }
        }
        #expect(verdict([9], computing: 5) == (5, true))
    }
}
