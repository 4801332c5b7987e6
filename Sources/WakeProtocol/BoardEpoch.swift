/// The board epoch (CONTRACT.md §2): a random nonzero UInt16 created once with the state
/// directory. A receiver that sees a different epoch knows the sequence space was reset
/// (state directory wiped, board replaced) and accepts the next Wake whatever its sequence.
package enum BoardEpoch {
    /// A fresh epoch; never 0, because 0 is what boards without epochs send.
    package static func generate(using generator: inout some RandomNumberGenerator) -> UInt16 {
        UInt16.random(in: 1...UInt16.max, using: &generator)
    }
}
