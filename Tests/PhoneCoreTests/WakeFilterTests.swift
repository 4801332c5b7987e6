import FoundationEssentials
import Testing

@testable import PhoneCore

@Suite struct WakeFilterTests {
    typealias Verdict = WakeFilter.Verdict

    /// (epoch, seq, verdict) in arrival order.
    @Test func timeline() {
        var filter = WakeFilter()
        let table: [(UInt16, UInt64, Verdict)] = [
            (7, 10, .newEpoch(previous: nil)),  // first Wake ever
            (7, 10, .duplicate),  // notify re-armed
            (7, 11, .next(missed: 0)),
            (7, 11, .duplicate),  // read echoes the notify
            (7, 9, .restarted(previous: 11)),  // went back: the board restarted without a new epoch
            (7, 9, .duplicate),
            (7, 15, .next(missed: 5)),  // 10 to 14 never arrived from the restarted board
            (9, 0, .newEpoch(previous: 7)),  // board state reset: seq 0 is new
            (9, 0, .duplicate),
            (9, 1, .next(missed: 0)),
            (7, 16, .newEpoch(previous: 9)),  // any other epoch is new, even a former one
            (7, 3, .restarted(previous: 16)),
        ]
        for (index, (epoch, sequence, verdict)) in table.enumerated() {
            #expect(filter.receive(epoch: epoch, sequence: sequence) == verdict, "row \(index)")
        }
        #expect(filter.lastEpoch == 7)
        #expect(filter.lastSequence == 3)
        var counters = WakeFilter.Counters()
        counters.received = 12
        counters.accepted = 8
        counters.duplicates = 4
        counters.missed = 5
        counters.epochChanges = 2
        counters.restarts = 2
        #expect(filter.counters == counters)
    }

    /// Found by fuzz-wake-envelope: a sender that jumps from 0 to 2⁶⁴−1 in two epochs claims more missed Wakes
    /// than a UInt64 holds, and the sum trapped, ending aiden-phone. The count now stops at its maximum, and the
    /// verdicts are unchanged.
    @Test func missedWakesBeyondTheCounterSaturate() {
        var filter = WakeFilter()
        let table: [(UInt16, UInt64, Verdict)] = [
            (1, 0, .newEpoch(previous: nil)),
            (1, .max, .next(missed: .max - 1)),
            (2, 0, .newEpoch(previous: 1)),
            (2, .max, .next(missed: .max - 1)),
            (3, 0, .newEpoch(previous: 2)),
            (3, 2, .next(missed: 1)),
        ]
        for (index, (epoch, sequence, verdict)) in table.enumerated() {
            #expect(filter.receive(epoch: epoch, sequence: sequence) == verdict, "row \(index)")
        }
        #expect(filter.counters.missed == .max)
        #expect(filter.counters.accepted == 6)
        #expect(filter.lastEpoch == 3 && filter.lastSequence == 2)
    }

    /// A board that keeps no epoch (the Aiden profile: bytes 2–3 are 0) counts from 1 again in every process.
    /// Each restart's Wakes are new, the first one included, even when it repeats the last sequence seen (only
    /// a fetch can tell an echo from a restart there); a nonzero epoch's repeat stays a duplicate.
    @Test func aBoardWithoutAnEpochLosesNoWakeAcrossItsRestarts() {
        var filter = WakeFilter()
        let table: [(UInt16, UInt64, Verdict)] = [
            (0, 1, .newEpoch(previous: nil)),
            (0, 2, .next(missed: 0)),
            (0, 3, .next(missed: 0)),
            (0, 1, .restarted(previous: 3)),  // the board process restarted
            (0, 2, .next(missed: 0)),
            (0, 1, .restarted(previous: 2)),  // and again, before it passed the old maximum
            (0, 1, .repeated),  // an echo, or a restart's first Wake: fetched
            (0, 2, .next(missed: 0)),
            (0, 2, .repeated),
            (5, 1, .newEpoch(previous: 0)),  // a board with an epoch
            (5, 1, .duplicate),
        ]
        for (index, (epoch, sequence, verdict)) in table.enumerated() {
            #expect(filter.receive(epoch: epoch, sequence: sequence) == verdict, "row \(index)")
        }
        #expect(filter.counters.restarts == 2)
        #expect(filter.counters.duplicates == 1)
        #expect(filter.counters.accepted == 10)
    }

    @Test func onlyDuplicatesSkipTheFetch() {
        #expect(Verdict.restarted(previous: 9).isNew)
        #expect(Verdict.repeated.isNew)
        #expect(Verdict.newEpoch(previous: nil).isNew)
        #expect(Verdict.next(missed: 4).isNew)
        #expect(!Verdict.duplicate.isNew)
    }

    @Test func aGapAtTheTopOfTheSequenceSpaceDoesNotOverflow() {
        var filter = WakeFilter()
        _ = filter.receive(epoch: 1, sequence: 0)
        #expect(filter.receive(epoch: 1, sequence: .max) == .next(missed: .max - 1))
        #expect(filter.receive(epoch: 1, sequence: .max) == .duplicate)
    }
}
