/// A small seeded generator (SplitMix64: Steele, Lea and Flood, 2014). The board's session draws a request's ids
/// from 64 fresh random bits the shell hands it, so the session stays a pure function of its inputs; tests seed it
/// so randomized runs replay exactly. Each output is a bijection of the state, so a seed's first draw is as random
/// as the seed.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
