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
        var encoder = TaskStoreEncoder()
        try seedDirectory.saveTasks(store, encoder: &encoder)
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

    /// The epoch a generator seeded with `seed` gives first, as a plain draw over 1…65535 would take it.
    static func firstDraw(seed: UInt64) -> UInt16 {
        var probe = SplitMix64(seed: seed)
        return UInt16.random(in: 1...UInt16.max, using: &probe)
    }

    /// A phone still holds the quarantined epoch and its highest sequence: the fresh epoch must not be that one,
    /// even when the generator's first draw would give it.
    @Test func aFreshEpochIsNeverTheQuarantinedOne() throws {
        for seed in UInt64(1)...20 {
            let old = Self.firstDraw(seed: seed)
            let fileSystem = InMemoryFileSystem(durableFiles: [
                "/state/wake.json": Array(#"{"epoch":\#(old),"sequence_high_water":"#.utf8)
            ])
            let directory = BoardStateDirectory(path: "/state", fileSystem: fileSystem)
            var random = SplitMix64(seed: seed)
            let loaded = try directory.load(now: now, using: &random)
            #expect(loaded.isNewEpoch)
            #expect(loaded.wake.epoch != old, "seed \(seed): the quarantined epoch \(old) came back")
            #expect(
                loaded.notes.contains {
                    $0 == "new epoch \(loaded.wake.epoch), apart from the epoch this directory held before (\(old))"
                })
            #expect(fileSystem.fileExists(at: "/state/wake.json.corrupt-1780000000"))
        }
    }

    /// wake.json gone but tasks.json kept: its ring generation names the old epoch, which the new one avoids.
    @Test func aFreshEpochAvoidsTheEpochTheTaskFileNames() throws {
        for seed in UInt64(1)...20 {
            let old = Self.firstDraw(seed: seed)
            var store = TaskStore(generation: "\(old)-0badc0de")
            var ids = SplitMix64(seed: 4)
            _ = try store.start(TaskDraft(taskTitle: "Kept"), idempotencyKey: nil, now: now, using: &ids)
            let seedFS = InMemoryFileSystem()
            try seedFS.createDirectory(at: "/state", permissions: 0o700)
            var encoder = TaskStoreEncoder()
            try BoardStateDirectory(path: "/state", fileSystem: seedFS).saveTasks(store, encoder: &encoder)
            let fileSystem = InMemoryFileSystem(durableFiles: [
                "/state/tasks.json": try seedFS.readFile(at: "/state/tasks.json")
            ])
            var random = SplitMix64(seed: seed)
            let loaded = try BoardStateDirectory(path: "/state", fileSystem: fileSystem).load(now: now, using: &random)
            #expect(loaded.isNewEpoch)
            #expect(loaded.store.count == 1)
            #expect(loaded.wake.epoch != old, "seed \(seed): the epoch of the kept tasks \(old) came back")
            #expect(loaded.store.transitions.generation.hasPrefix("\(loaded.wake.epoch)-"))
        }
    }

    @Test func aRingGenerationNamesItsEpoch() {
        #expect(BoardStateDirectory.epoch(ofGeneration: "4660-1a2b3c4d") == 4660)
        #expect(BoardStateDirectory.epoch(ofGeneration: "0-1a2b3c4d") == nil)
        #expect(BoardStateDirectory.epoch(ofGeneration: "g1") == nil)
        #expect(BoardStateDirectory.epoch(ofGeneration: "70000-1") == nil)
    }
}
