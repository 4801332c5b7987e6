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
}
