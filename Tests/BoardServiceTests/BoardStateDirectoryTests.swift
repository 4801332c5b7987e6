import FoundationEssentials
import LiveActivity
import Platform
import TestSupport
import Testing
import WakeProtocol

@testable import BoardService

@Suite struct BoardStateDirectoryTests {
    let now = Date(timeIntervalSince1970: 1_780_000_000)

    @Test func aNewDirectoryGetsADurableEpochAtOnce() throws {
        let fileSystem = InMemoryFileSystem()
        let directory = BoardStateDirectory(path: "/state", fileSystem: fileSystem)
        var random = SplitMix64(seed: 7)
        let loaded = try directory.load(now: now, using: &random)
        #expect(loaded.isNewEpoch)
        #expect(loaded.wake.epoch != 0)
        fileSystem.crash()
        var again = SplitMix64(seed: 99)
        let reloaded = try directory.load(now: now, using: &again)
        #expect(!reloaded.isNewEpoch)
        #expect(reloaded.wake == loaded.wake)
    }

    @Test func aCorruptTaskFileIsMovedAsideAndReported() throws {
        let fileSystem = InMemoryFileSystem(durableFiles: [
            "/state/wake.json": Array(#"{"epoch":4660,"sequence_high_water":2048}"#.utf8),
            "/state/tasks.json": Array(#"{"tasks": [garbage"#.utf8),
        ])
        let directory = BoardStateDirectory(path: "/state", fileSystem: fileSystem)
        var random = SplitMix64(seed: 1)
        let loaded = try directory.load(now: now, using: &random)
        #expect(loaded.wake == WakeState(epoch: 4660, sequenceHighWater: 2048))
        #expect(loaded.store.count == 0)
        #expect(loaded.notes.count == 1)
        #expect(loaded.notes[0].contains("/state/tasks.json was not valid"))
        #expect(loaded.notes[0].contains("moved to /state/tasks.json.corrupt-1780000000"))
        #expect(
            try fileSystem.readFile(at: "/state/tasks.json.corrupt-1780000000") == Array(#"{"tasks": [garbage"#.utf8))
        #expect(!fileSystem.fileExists(at: "/state/tasks.json"))
    }

    @Test func aCorruptWakeFileStartsANewEpochAndResetsTheRing() throws {
        // Tasks survive, but the sequence space cannot be trusted: new epoch, new ring generation.
        let seedFS = InMemoryFileSystem()
        let seedDirectory = BoardStateDirectory(path: "/state", fileSystem: seedFS)
        var random = SplitMix64(seed: 3)
        var store = try seedDirectory.load(now: now, using: &random).store
        var ids = SplitMix64(seed: 4)
        _ = try store.start(TaskDraft(taskTitle: "Kept"), idempotencyKey: nil, now: now, using: &ids)
        try seedDirectory.saveTasks(store)
        let tasks = try seedFS.readFile(at: "/state/tasks.json")

        let fileSystem = InMemoryFileSystem(durableFiles: [
            "/state/wake.json": Array(#"{"epoch":0,"sequence_high_water":5}"#.utf8), "/state/tasks.json": tasks,
        ])
        let directory = BoardStateDirectory(path: "/state", fileSystem: fileSystem)
        var fresh = SplitMix64(seed: 5)
        let loaded = try directory.load(now: now, using: &fresh)
        #expect(loaded.isNewEpoch)
        #expect(loaded.wake.sequenceHighWater == 0)
        #expect(loaded.store.count == 1)
        #expect(loaded.store.transitions.generation != store.transitions.generation)
        #expect(loaded.notes.contains { $0.contains("wake.json was not valid") && $0.contains("epoch") })
        #expect(loaded.notes.contains { $0.contains("transition ring reset") })
    }

    @Test func anUncreatableDirectoryIsAClearError() throws {
        let fileSystem = InMemoryFileSystem()
        fileSystem.inject(.failOnce, atOperation: 0)
        let directory = BoardStateDirectory(path: "/state", fileSystem: fileSystem)
        var random = SplitMix64(seed: 1)
        #expect {
            try directory.load(now: now, using: &random)
        } throws: { error in
            (error as? BoardStateError)?.description.hasPrefix("/state: cannot create the state directory") == true
        }
    }
}
