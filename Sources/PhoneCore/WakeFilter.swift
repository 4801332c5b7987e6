/// Decides whether a received Wake is new (docs/protocol.md §2.5): a duplicate only when it repeats the last
/// epoch and sequence of a board that has an epoch (nonzero); every other Wake is new.
///
/// BlueZ re-arms notify sessions and a read echoes the last notify, so the same Wake often arrives
/// twice; only new ones should cost a fetch. A sequence that went back within the epoch is new: no board
/// sends one but after a restart that kept its epoch (a board without one, epoch 0, starts again at 1), and
/// dropping it would lose the change it announces. With epoch 0 even an equal sequence may be a restarted
/// board's first Wake, so it is new too: the fetch scheduler still folds any number into one fetch. The filter also counts what it saw, so a client can
/// tell "the board sent 40 Wakes and we got 38" from "we got them all". It lives as long as the
/// process: a restarted client fetches at start anyway, so its first Wake counting as new costs one fetch.
package struct WakeFilter: Sendable, Equatable {
    /// What a Wake means for the client.
    package enum Verdict: Sendable, Equatable {
        /// A different epoch than the last Wake (or the first Wake ever, `previous == nil`): the board's
        /// sequence space was reset, so the client resets its events cursor, then fetches.
        case newEpoch(previous: UInt16?)
        /// A larger sequence in the same epoch: fetch. `missed` Wakes between the two were never received
        /// (harmless, a Wake is only a hint, but worth counting).
        case next(missed: UInt64)
        /// Same epoch, a smaller sequence than the last one: the board restarted without a new epoch (a board
        /// with none, epoch 0, counts from 1 again in every process). Fetch; the events answer says whether
        /// the ring was reset.
        case restarted(previous: UInt64)
        /// Epoch 0 (a board that keeps no epoch) and the same sequence as the last Wake: an echo, or the first
        /// Wake of a board that restarted and counted to it again. Fetch: only a fetch can tell.
        case repeated
        /// Same nonzero epoch and the same sequence as the last Wake: already acted on, drop it.
        case duplicate

        /// Whether the client should fetch.
        package var isNew: Bool { self != .duplicate }
    }

    /// Running totals since the filter was created.
    package struct Counters: Sendable, Equatable {
        package var received: UInt64 = 0
        package var accepted: UInt64 = 0
        package var duplicates: UInt64 = 0
        /// Sequence numbers skipped inside an epoch (sum of `Verdict.next(missed:)`), at most `UInt64.max`: a
        /// sender can claim any gap, and two claims of 2⁶⁴−2 must not overflow the sum (found by fuzzing).
        package var missed: UInt64 = 0
        /// Epoch changes after the first Wake.
        package var epochChanges: UInt64 = 0
        /// Sequences that went back within an epoch (`Verdict.restarted`): board restarts without a new epoch.
        package var restarts: UInt64 = 0

        package init() {}
    }

    private struct Position: Sendable, Equatable {
        var epoch: UInt16
        var sequence: UInt64
    }

    private var last: Position?
    package private(set) var counters = Counters()

    package init() {}

    /// The epoch of the last new Wake, nil before the first.
    package var lastEpoch: UInt16? { last?.epoch }
    /// The sequence of the last new Wake, nil before the first.
    package var lastSequence: UInt64? { last?.sequence }

    /// Judges one received Wake and remembers it when it is new.
    package mutating func receive(epoch: UInt16, sequence: UInt64) -> Verdict {
        counters.received += 1
        let verdict: Verdict
        if let last, last.epoch == epoch {
            if sequence > last.sequence {
                let missed = sequence - last.sequence - 1
                let (sum, overflow) = counters.missed.addingReportingOverflow(missed)
                counters.missed = overflow ? .max : sum
                verdict = .next(missed: missed)
            } else if sequence < last.sequence {
                counters.restarts += 1
                verdict = .restarted(previous: last.sequence)
            } else if epoch == 0 {
                verdict = .repeated
            } else {
                counters.duplicates += 1
                return .duplicate
            }
        } else {
            if last != nil { counters.epochChanges += 1 }
            verdict = .newEpoch(previous: last?.epoch)
        }
        counters.accepted += 1
        last = Position(epoch: epoch, sequence: sequence)
        return verdict
    }
}
