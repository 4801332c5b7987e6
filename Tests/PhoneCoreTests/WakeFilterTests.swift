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
            (7, 9, .duplicate),  // older: also dropped
            (7, 15, .next(missed: 3)),  // 12, 13, 14 never arrived
            (9, 0, .newEpoch(previous: 7)),  // board state reset: seq 0 is new
            (9, 0, .duplicate),
            (9, 1, .next(missed: 0)),
            (7, 16, .newEpoch(previous: 9)),  // any other epoch is new, even a former one
            (7, 3, .duplicate),
        ]
        for (index, (epoch, sequence, verdict)) in table.enumerated() {
            #expect(filter.receive(epoch: epoch, sequence: sequence) == verdict, "row \(index)")
        }
        #expect(filter.lastEpoch == 7)
        #expect(filter.lastSequence == 16)
        var counters = WakeFilter.Counters()
        counters.received = 11
        counters.accepted = 6
        counters.duplicates = 5
        counters.missed = 3
        counters.epochChanges = 2
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

    @Test func onlyDuplicatesSkipTheFetch() {
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

    @Test func aRestoredFilterKeepsDroppingWhatItAlreadySaw() throws {
        var filter = WakeFilter()
        _ = filter.receive(epoch: 3, sequence: 41)
        _ = filter.receive(epoch: 3, sequence: 42)
        let data = try JSONEncoder().encode(filter)
        var restored = try JSONDecoder().decode(WakeFilter.self, from: data)
        #expect(restored == filter)
        #expect(restored.receive(epoch: 3, sequence: 42) == .duplicate)
        #expect(restored.receive(epoch: 3, sequence: 43) == .next(missed: 0))
        #expect(restored.counters.accepted == 3)
    }
}
