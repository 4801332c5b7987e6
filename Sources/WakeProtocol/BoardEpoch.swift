/// The board epoch (docs/protocol.md §2.4): a random nonzero UInt16 created once with the state
/// directory. A receiver that sees a different epoch knows the sequence space was reset
/// (state directory wiped, board replaced) and accepts the next Wake whatever its sequence.
package enum BoardEpoch {
    /// A fresh epoch; never 0, because 0 is what boards without epochs send.
    package static func generate(using generator: inout some RandomNumberGenerator) -> UInt16 {
        generate(excluding: [], using: &generator)
    }

    /// A fresh epoch that is none of `previous`: the epochs this state directory held before (read from a
    /// corrupt `wake.json` or from the ring generation in `tasks.json`). A phone still holds the old epoch and
    /// the highest sequence it saw there; a new epoch equal to it would restart the sequence at 1 under the
    /// old number, and the phone would drop every Wake until the sequence passed the old one.
    ///
    /// Drawn uniformly from the epochs left (an index among them, so one draw, no retry loop). Should every
    /// nonzero value be excluded, which no caller can reach, the exclusion is ignored.
    package static func generate(
        excluding previous: Set<UInt16>, using generator: inout some RandomNumberGenerator
    )
        -> UInt16
    {
        let excluded = previous.subtracting([0]).sorted()
        guard excluded.count < Int(UInt16.max) else { return UInt16.random(in: 1...UInt16.max, using: &generator) }
        let choices = Int(UInt16.max) - excluded.count
        // The index-th nonzero value that is not excluded: step over each excluded value at or below it.
        var epoch = Int.random(in: 0..<choices, using: &generator) + 1
        for value in excluded where Int(value) <= epoch { epoch += 1 }
        return UInt16(epoch)
    }
}
