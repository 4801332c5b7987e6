import FoundationEssentials
import Testing

@testable import WakeProtocol

/// kill -9 at every step of a board issuing Wakes, then a restart from what survived: every
/// Wake after the restart must carry a larger sequence than every Wake sent before.
///
/// Storage is modelled as `AtomicFile` guarantees it (PlatformTests prove that part): a
/// record write either completed, and survives, or did not happen. Records go through JSON, as
/// in the state directory.
@Suite struct SequenceReservationCrashTests {
    /// The state directory: the encoded `WakeState`, or nil before the first write.
    struct Disk {
        var record: Data?
    }

    struct Crashed: Error {}

    /// A board process. `stepBudget` is how many durable writes and sends it completes before
    /// it is killed (nil: never). `sendBeforePersist` builds the bug the protocol forbids, to
    /// show that this harness finds it.
    struct Board {
        var disk: Disk
        var stepBudget: Int?
        var sendBeforePersist = false
        var sent: [WakeEnvelope] = []

        mutating func step() throws(Crashed) {
            guard let budget = stepBudget else { return }
            guard budget > 0 else { throw Crashed() }
            stepBudget = budget - 1
        }

        mutating func persist(_ state: WakeState) throws {
            try step()
            disk.record = try JSONEncoder().encode(state)
        }

        /// Starts (creating the state if needed) and sends `wakes` Wakes; throws `Crashed`
        /// when killed.
        mutating func run(wakes: Int, blockSize: UInt64, generator: inout SplitMix64) throws {
            var state: WakeState
            if let record = disk.record {
                state = try JSONDecoder().decode(WakeState.self, from: record)
            } else {
                state = WakeState.fresh(using: &generator)
                try persist(state)
            }
            var reservation = SequenceReservation(persistedHighWater: state.sequenceHighWater, blockSize: blockSize)
            for _ in 0..<wakes {
                let issue = try reservation.next()
                let envelope = WakeEnvelope(reason: .liveActivity, epoch: state.epoch, sequence: issue.sequence)
                if sendBeforePersist {
                    try step()
                    sent.append(envelope)
                }
                if let mark = issue.mustPersistFirst {
                    state.sequenceHighWater = mark
                    try persist(state)
                    reservation.confirmPersisted(highWater: mark)
                }
                if !sendBeforePersist {
                    try step()
                    sent.append(envelope)
                }
            }
        }
    }

    /// Runs a board killed after `crashAfter` steps, restarts it on the surviving disk, and
    /// returns the Wakes sent before and after.
    func crashAndRestart(
        crashAfter: Int, blockSize: UInt64, sendBeforePersist: Bool = false
    ) throws -> (before: [WakeEnvelope], after: [WakeEnvelope]) {
        var generator = SplitMix64(seed: UInt64(crashAfter))
        var first = Board(disk: Disk(), stepBudget: crashAfter, sendBeforePersist: sendBeforePersist)
        do {
            try first.run(wakes: 40, blockSize: blockSize, generator: &generator)
        } catch is Crashed {}
        var second = Board(disk: first.disk, stepBudget: nil, sendBeforePersist: sendBeforePersist)
        try second.run(wakes: 40, blockSize: blockSize, generator: &generator)
        return (first.sent, second.sent)
    }

    /// True when some Wake after the restart would be dropped by a receiver that saw the
    /// Wakes before it (same epoch, sequence not larger).
    func receiverWouldDropOne(before: [WakeEnvelope], after: [WakeEnvelope]) -> Bool {
        guard let epoch = before.last?.epoch, let highest = before.map(\.sequence).max() else { return false }
        return after.contains { $0.epoch == epoch && $0.sequence <= highest }
    }

    @Test(arguments: [UInt64(1), 3, 8])
    func everyWakeAfterARestartIsNewerThanEveryWakeBefore(blockSize: UInt64) throws {
        // 40 sends plus at most 41 writes: crash at each of them, and once after the end.
        for crashAfter in 0...90 {
            let (before, after) = try crashAndRestart(crashAfter: crashAfter, blockSize: blockSize)
            #expect(!after.isEmpty)
            if let epoch = before.first?.epoch {
                #expect(after.allSatisfy { $0.epoch == epoch }, "crash after \(crashAfter): epoch changed on restart")
            }
            let highestBefore = before.map(\.sequence).max() ?? 0
            let lowestAfter = after.map(\.sequence).min() ?? 0
            #expect(lowestAfter > highestBefore, "block \(blockSize), crash after \(crashAfter) steps")
            #expect(zip(after, after.dropFirst()).allSatisfy { $0.sequence < $1.sequence })
        }
    }

    /// Several kills in a row: the whole history of sent Wakes stays strictly increasing.
    @Test func repeatedCrashesKeepTheWholeHistoryIncreasing() throws {
        var generator = SplitMix64(seed: 7)
        var disk = Disk()
        var history: [WakeEnvelope] = []
        for _ in 0..<200 {
            var board = Board(disk: disk, stepBudget: Int.random(in: 0...12, using: &generator))
            do {
                try board.run(wakes: 10, blockSize: 4, generator: &generator)
            } catch is Crashed {}
            history += board.sent
            disk = board.disk
        }
        #expect(history.count > 500)
        #expect(Set(history.map(\.epoch)).count == 1)
        #expect(zip(history, history.dropFirst()).allSatisfy { $0.sequence < $1.sequence })
    }

    /// The harness is sharp: sending before the high-water mark is durable is caught.
    @Test func sendingBeforePersistingIsCaught() throws {
        let caught = try (0...90).contains { crashAfter in
            let (before, after) = try crashAndRestart(crashAfter: crashAfter, blockSize: 4, sendBeforePersist: true)
            return receiverWouldDropOne(before: before, after: after)
        }
        #expect(caught)
    }
}
