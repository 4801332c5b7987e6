import Testing

@testable import WakeProtocol

@Suite struct BoardEpochTests {
    /// Uses the generator it is given: many draws are all nonzero and cover most of the range.
    @Test func drawsAreNonzeroAndSpread() {
        var generator = SplitMix64(seed: 0xA1DE)
        var seen = Set<UInt16>()
        for _ in 0..<200_000 { seen.insert(BoardEpoch.generate(using: &generator)) }
        #expect(!seen.contains(0))
        #expect(seen.count > 60_000)
    }

    @Test func sameSeedSameEpoch() {
        var first = SplitMix64(seed: 99)
        var second = SplitMix64(seed: 99)
        #expect(BoardEpoch.generate(using: &first) == BoardEpoch.generate(using: &second))
    }

    /// A fresh epoch never repeats one the directory held before, whichever draw the generator gives.
    @Test func anExcludedEpochIsNeverDrawn() {
        for seed in UInt64(0)..<2_000 {
            var plain = SplitMix64(seed: seed)
            let wouldBe = BoardEpoch.generate(using: &plain)
            var generator = SplitMix64(seed: seed)
            let drawn = BoardEpoch.generate(excluding: [wouldBe, 4660], using: &generator)
            #expect(drawn != wouldBe && drawn != 4660 && drawn != 0, "seed \(seed)")
        }
    }

    /// One draw among the epochs left, so even an exclusion of all but one gives that one at once.
    @Test func theExclusionLeavesTheRestToChooseFrom() {
        var generator = SplitMix64(seed: 5)
        let allButOne = Set(UInt16(1)...UInt16.max).subtracting([777])
        #expect(BoardEpoch.generate(excluding: allButOne, using: &generator) == 777)
        #expect(BoardEpoch.generate(excluding: [65535], using: &generator) != 65535)
        // Nothing left: the exclusion cannot be met and is ignored rather than looping.
        #expect(BoardEpoch.generate(excluding: Set(UInt16(1)...UInt16.max), using: &generator) != 0)
    }
}
