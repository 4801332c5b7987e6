import Platform
import TestSupport
import Testing
import WakeProtocol

@testable import BoardService

/// docs/protocol.md §7.1: every Wake after a restart has a larger sequence than every Wake sent before, whatever
/// step a crash interrupts. The board engine, its state directory and AtomicFile run on an
/// in-memory file system that stops at operation k (the process dies there), then loses
/// everything not yet durable; a new engine starts from what is left.
@Suite struct WakeSequenceCrashTests {
    /// Runs a board that starts tasks and sends Wakes until the file system stops it; returns the
    /// ids of the starts it acknowledged (answered 201).
    @discardableResult
    func runUntilCrash(_ board: EngineFixture, tasks: Int) -> [String] {
        board.engine.start()
        var acknowledged: [String] = []
        for index in 0..<tasks {
            board.runtime.advance(by: .milliseconds(800))
            let id = board.start("task \(index)")
            if id.hasPrefix("chat_") { acknowledged.append(id) }
        }
        board.runtime.advance(by: .seconds(1))
        return acknowledged
    }

    @Test(arguments: [1, 2, 3])
    func aCrashAtAnyStepNeverRepeatsASequence(blockSize: UInt64) throws {
        // Count the operations of a full run to know every step a crash can hit.
        let probe = try EngineFixture(blockSize: blockSize)
        let start = probe.fileSystem.operationCount
        runUntilCrash(probe, tasks: 6)
        let steps = probe.fileSystem.operationCount - start
        #expect(steps > 20)

        for step in 0...steps {
            let fileSystem = InMemoryFileSystem()
            let first = try EngineFixture(fileSystem: fileSystem, blockSize: blockSize)
            fileSystem.inject(.stop, atOperation: fileSystem.operationCount + step)
            let acknowledged = runUntilCrash(first, tasks: 6)
            let sent = first.sink.envelopes
            let second = try first.restartedAfterCrash(seed: UInt64(step) + 100)
            runUntilCrash(second, tasks: 2)
            let after = second.sink.envelopes
            #expect(!after.isEmpty, "the restarted board sends Wakes (crash at step \(step))")
            if let highest = sent.map(\.sequence).max(), let lowest = after.map(\.sequence).min() {
                #expect(lowest > highest, "crash at step \(step): \(lowest) after \(highest)")
            }
            if let before = sent.first, let next = after.first {
                #expect(before.epoch == next.epoch, "the epoch was durable before the first Wake (step \(step))")
            }
            // An acknowledged start is never lost: every 201 the first board gave is still there.
            for id in acknowledged {
                #expect(second.loaded.store.task(id: id) != nil, "acknowledged \(id) lost (crash at step \(step))")
            }
        }
    }
}
