import Testing
import WakeProtocol

@Suite struct SplitMix64Tests {
    /// Reference outputs of SplitMix64 for seed 0, so a broken generator cannot quietly make
    /// the randomized tests weaker.
    @Test func matchesTheReferenceSequence() {
        var generator = SplitMix64(seed: 0)
        let outputs = (0..<3).map { _ in generator.next() }
        #expect(outputs == [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F])
    }
}
