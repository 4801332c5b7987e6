import Testing

@testable import WakeProtocol

@Suite struct SequenceReservationTests {
    @Test func reservesABlockAheadAndPersistsOncePerBlock() throws {
        var reservation = SequenceReservation(persistedHighWater: 0, blockSize: 4)
        #expect(reservation.lastIssued == 0)
        #expect(try reservation.next() == .init(sequence: 1, mustPersistFirst: 4))
        reservation.confirmPersisted(highWater: 4)
        #expect(try reservation.next() == .init(sequence: 2, mustPersistFirst: nil))
        #expect(try reservation.next() == .init(sequence: 3, mustPersistFirst: nil))
        #expect(try reservation.next() == .init(sequence: 4, mustPersistFirst: nil))
        #expect(try reservation.next() == .init(sequence: 5, mustPersistFirst: 8))
        reservation.confirmPersisted(highWater: 8)
        #expect(reservation.lastIssued == 5)
        #expect(reservation.durableHighWater == 8)
    }

    @Test func restartContinuesAboveThePersistedMark() throws {
        var reservation = SequenceReservation(persistedHighWater: 8, blockSize: 4)
        #expect(reservation.lastIssued == 8)
        #expect(try reservation.next() == .init(sequence: 9, mustPersistFirst: 12))
    }

    /// A failed write is not confirmed, so the next sequence asks for a write again.
    @Test func unconfirmedMarkIsRequestedAgain() throws {
        var reservation = SequenceReservation(persistedHighWater: 0, blockSize: 4)
        #expect(try reservation.next() == .init(sequence: 1, mustPersistFirst: 4))
        #expect(try reservation.next() == .init(sequence: 2, mustPersistFirst: 5))
        reservation.confirmPersisted(highWater: 5)
        #expect(try reservation.next() == .init(sequence: 3, mustPersistFirst: nil))
    }

    @Test func lowerOrRepeatedConfirmationsCannotShrinkTheReservation() throws {
        var reservation = SequenceReservation(persistedHighWater: 100, blockSize: 4)
        reservation.confirmPersisted(highWater: 50)
        #expect(reservation.durableHighWater == 100)
        #expect(try reservation.next() == .init(sequence: 101, mustPersistFirst: 104))
    }

    @Test func blockSizeZeroMeansPersistEverySequence() throws {
        var reservation = SequenceReservation(persistedHighWater: 0, blockSize: 0)
        #expect(reservation.blockSize == 1)
        for sequence in UInt64(1)...5 {
            #expect(try reservation.next() == .init(sequence: sequence, mustPersistFirst: sequence))
            reservation.confirmPersisted(highWater: sequence)
        }
    }

    @Test func defaultBlockIs1024() throws {
        var reservation = SequenceReservation(persistedHighWater: 0)
        #expect(try reservation.next() == .init(sequence: 1, mustPersistFirst: 1024))
    }

    @Test func markSaturatesAndTheEpochEventuallyRunsOut() throws {
        var reservation = SequenceReservation(persistedHighWater: UInt64.max - 2, blockSize: 1024)
        #expect(try reservation.next() == .init(sequence: UInt64.max - 1, mustPersistFirst: UInt64.max))
        reservation.confirmPersisted(highWater: UInt64.max)
        #expect(try reservation.next() == .init(sequence: UInt64.max, mustPersistFirst: nil))
        #expect(throws: SequenceReservationError.exhausted(epochHighWater: UInt64.max)) {
            try reservation.next()
        }
        #expect(SequenceReservationError.exhausted(epochHighWater: 1).description.contains("new board epoch"))
    }

    /// Random mixes of issuing and (sometimes failing) persisting: sequences only grow, and a
    /// sequence that may be sent (no write asked, or the write confirmed) is always covered.
    @Test func randomUseKeepsEverySendableSequenceCovered() throws {
        for seed in UInt64(0)..<500 {
            var generator = SplitMix64(seed: seed)
            let block = UInt64.random(in: 1...16, using: &generator)
            var reservation = SequenceReservation(
                persistedHighWater: UInt64.random(in: 0...1000, using: &generator),
                blockSize: block)
            var previous = reservation.lastIssued
            for _ in 0..<200 {
                let issue = try reservation.next()
                #expect(issue.sequence > previous, "seed \(seed)")
                previous = issue.sequence
                if let mark = issue.mustPersistFirst {
                    #expect(mark >= issue.sequence && mark - issue.sequence == block - 1, "seed \(seed)")
                    guard Bool.random(using: &generator) else { continue }  // the write failed
                    reservation.confirmPersisted(highWater: mark)
                }
                #expect(issue.sequence <= reservation.durableHighWater, "seed \(seed)")
            }
        }
    }
}
