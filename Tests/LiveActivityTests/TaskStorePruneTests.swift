import FoundationEssentials
import Testing
import WakeProtocol

@testable import LiveActivity

@Suite struct TaskStorePruneTests {
    @Test func pruneRemovesEndedTasksFromTheInstantTheirRetentionEnds() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("a", at: at(0))
        try store.startTask("b", at: at(1))
        try store.startTask("active", at: at(2))
        _ = try store.end(id: "b", TaskEnd(status: .completed), now: at(10))
        _ = try store.end(id: "a", TaskEnd(status: .failed), now: at(20))
        #expect(store.nextExpiry(retention: tenMinutes) == at(610))

        let revision = store.revision
        #expect(store.prune(now: at(609.999), retention: tenMinutes).isEmpty)
        #expect(store.revision == revision)

        #expect(store.prune(now: at(610), retention: tenMinutes) == ["b"])
        #expect(store.revision == revision + 1)
        #expect(store.task(id: "b") == nil)
        #expect(store.nextExpiry(retention: tenMinutes) == at(620))

        #expect(store.prune(now: at(10_000), retention: tenMinutes) == ["a"])
        #expect(store.tasks.map(\.requestID) == ["active"])
        #expect(store.nextExpiry(retention: tenMinutes) == nil)
    }

    @Test func pruneReturnsIDsOldestEndFirst() throws {
        var store = TaskStore(generation: "g1")
        for (index, id) in ["x", "y", "z"].enumerated() {
            try store.startTask(id, at: at(Double(index)))
        }
        for id in ["z", "x", "y"] {
            _ = try store.end(id: id, TaskEnd(status: .canceled), now: at(5))
        }
        #expect(store.prune(now: at(605), retention: tenMinutes) == ["z", "x", "y"])
        #expect(store.count == 0)
    }

    @Test func aPrunedTasksIdempotencyKeyStartsAFreshTask() throws {
        var store = TaskStore(generation: "g1")
        var generator = SplitMix64(seed: 9)
        let draft = TaskDraft(taskTitle: "A")
        let first = try store.start(draft, idempotencyKey: "k", now: at(0), using: &generator)
        _ = try store.end(id: first.snapshot.requestID, TaskEnd(status: .completed), now: at(1))
        store.prune(now: at(601), retention: tenMinutes)
        #expect(store.idempotencyRecords.isEmpty)
        let again = try store.start(draft, idempotencyKey: "k", now: at(602), using: &generator)
        #expect(again.changed)
        #expect(again.snapshot.requestID != first.snapshot.requestID)
    }
}
