/// Issues wake sequences that stay strictly increasing across restarts and kill -9 without an
/// fsync per Wake (docs/protocol.md §2.4, §7.1).
///
/// The board persists a high-water mark *ahead* of use: one durable write reserves a block of
/// sequences, and Wakes inside the block need no write. On start the board continues above the
/// persisted mark, so sequences lost with a crash are skipped, never reused. Gaps are harmless:
/// receivers only compare with `>`.
///
/// The caller persists and confirms:
///
///     let issue = try reservation.next()
///     if let mark = issue.mustPersistFirst {
///         try store.write(WakeState(epoch: epoch, sequenceHighWater: mark))   // durable
///         reservation.confirmPersisted(highWater: mark)
///     }
///     send(issue.sequence)
///
/// If the write fails, the caller simply does not confirm (and does not send); the next call
/// asks again. The sequence that could not be sent is skipped.
package struct SequenceReservation: Equatable, Sendable {
    /// One call's result: the sequence to use, and the mark to make durable before sending it.
    package struct Issue: Equatable, Sendable {
        package var sequence: UInt64
        /// When set, write this high-water mark durably before sending `sequence`.
        package var mustPersistFirst: UInt64?

        package init(sequence: UInt64, mustPersistFirst: UInt64?) {
            self.sequence = sequence
            self.mustPersistFirst = mustPersistFirst
        }
    }

    package static let defaultBlockSize: UInt64 = 1024

    /// How many sequences one durable write reserves (at least 1).
    package let blockSize: UInt64
    /// The highest sequence known to be covered by a durable record.
    package private(set) var durableHighWater: UInt64
    /// The last sequence handed out, or the persisted mark before the first one: every
    /// sequence up to it may already have been sent. A `ReadValue` before the first Wake
    /// reports this.
    package private(set) var lastIssued: UInt64

    /// Starts above `persistedHighWater`, the mark read back from durable storage (0 for a new
    /// state directory).
    package init(persistedHighWater: UInt64, blockSize: UInt64 = SequenceReservation.defaultBlockSize) {
        self.blockSize = max(blockSize, 1)
        self.durableHighWater = persistedHighWater
        self.lastIssued = persistedHighWater
    }

    /// The next sequence. Throws `.exhausted` once UInt64.max has been issued: only a new epoch could
    /// go on, and the board starts none while it runs (it logs the error and sends no more Wakes; a new
    /// state directory would). In practice unreachable: 2^64 Wakes at one per 750 ms.
    package mutating func next() throws(SequenceReservationError) -> Issue {
        guard lastIssued < UInt64.max else { throw .exhausted(epochHighWater: lastIssued) }
        let sequence = lastIssued + 1
        lastIssued = sequence
        guard sequence > durableHighWater else { return Issue(sequence: sequence, mustPersistFirst: nil) }
        let (end, overflow) = sequence.addingReportingOverflow(blockSize - 1)
        return Issue(sequence: sequence, mustPersistFirst: overflow ? UInt64.max : end)
    }

    /// Records that `highWater` is now durable. Marks at or below the current one are ignored,
    /// so a late or repeated confirmation cannot lower the reservation.
    package mutating func confirmPersisted(highWater: UInt64) {
        durableHighWater = max(durableHighWater, highWater)
    }
}
