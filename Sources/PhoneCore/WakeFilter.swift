/// Decides whether a received Wake is new (docs/protocol.md §2.5): new iff `epoch != lastEpoch || seq > lastSeq`.
///
/// BlueZ re-arms notify sessions and a read echoes the last notify, so the same Wake often arrives
/// twice; only new ones should cost a fetch. The filter also counts what it saw, so a client can
/// tell "the board sent 40 Wakes and we got 38" from "we got them all". Codable, so a restarted
/// client keeps dropping Wakes it already acted on.
package struct WakeFilter: Sendable, Equatable, Codable {
    /// What a Wake means for the client.
    package enum Verdict: Sendable, Equatable {
        /// A different epoch than the last Wake (or the first Wake ever, `previous == nil`): the board's
        /// sequence space was reset, so the client resets its events cursor, then fetches.
        case newEpoch(previous: UInt16?)
        /// A larger sequence in the same epoch: fetch. `missed` Wakes between the two were never received
        /// (harmless, a Wake is only a hint, but worth counting).
        case next(missed: UInt64)
        /// Same epoch, sequence not larger than the last one: already acted on, drop it.
        case duplicate

        /// Whether the client should fetch.
        package var isNew: Bool { self != .duplicate }
    }

    /// Running totals since the filter was created (they survive persistence).
    package struct Counters: Sendable, Equatable, Codable {
        package var received: UInt64 = 0
        package var accepted: UInt64 = 0
        package var duplicates: UInt64 = 0
        /// Sequence numbers skipped inside an epoch (sum of `Verdict.next(missed:)`), at most `UInt64.max`: a
        /// sender can claim any gap, and two claims of 2⁶⁴−2 must not overflow the sum (found by fuzzing).
        package var missed: UInt64 = 0
        /// Epoch changes after the first Wake.
        package var epochChanges: UInt64 = 0

        package init() {}
    }

    private struct Position: Sendable, Equatable, Codable {
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
            guard sequence > last.sequence else {
                counters.duplicates += 1
                return .duplicate
            }
            let missed = sequence - last.sequence - 1
            let (sum, overflow) = counters.missed.addingReportingOverflow(missed)
            counters.missed = overflow ? .max : sum
            verdict = .next(missed: missed)
        } else {
            if last != nil { counters.epochChanges += 1 }
            verdict = .newEpoch(previous: last?.epoch)
        }
        counters.accepted += 1
        last = Position(epoch: epoch, sequence: sequence)
        return verdict
    }
}
