import FoundationEssentials
import Testing
import WakeProtocol

@testable import LiveActivity

/// `Idempotency-Key` on updates and ends: a retry returns the task as it now is, a key names one request.
@Suite struct TaskStoreIdempotencyTests {
    @Test func aRetriedUpdateIsAnsweredWithoutWritingAgainEvenWhenItsRevisionIsStale() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("chat_a", at: at(0))
        let patch = TaskPatch(currentStep: "Tapping Wi-Fi", expectedRevision: 1)
        let first = try store.update(id: "chat_a", patch: patch, idempotencyKey: "u-1", now: at(1))
        #expect(first.durability == .lazy)
        let afterFirst = store
        // The answer was lost; the agent sends the same update again. Its expected_revision is now stale.
        let retry = try store.update(id: "chat_a", patch: patch, idempotencyKey: "u-1", now: at(2))
        #expect(retry.durability == .unchanged)
        #expect(retry.snapshot == first.snapshot)
        #expect(store == afterFirst, "a replay writes nothing")
        // Without the key the same retry is refused.
        let unkeyed = storeError { _ = try store.update(id: "chat_a", patch: patch, now: at(3)) }
        #expect(unkeyed == .conflict(#"stale expected_revision 1: task "chat_a" is at revision 2"#))
    }

    @Test func aRetriedUpdateDoesNotUndoAWriteThatCameBetween() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("chat_a", at: at(0))
        _ = try store.update(id: "chat_a", patch: TaskPatch(currentStep: "one"), idempotencyKey: "u-1", now: at(1))
        _ = try store.update(id: "chat_a", patch: TaskPatch(currentStep: "two"), idempotencyKey: "u-2", now: at(2))
        let retry = try store.update(
            id: "chat_a", patch: TaskPatch(currentStep: "one"), idempotencyKey: "u-1", now: at(3))
        #expect(retry.snapshot.currentStep == "two")
        #expect(retry.durability == .unchanged)
    }

    @Test func anUpdateThatChangedNothingStillFilesItsKey() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("chat_a", at: at(0))
        let noop = try store.update(id: "chat_a", patch: TaskPatch(), idempotencyKey: "u-1", now: at(1))
        #expect(noop.durability == .unchanged)
        #expect(store.revision == 1)
        #expect(store.idempotencyRecords["u-1"]?.operation == .update)
        let reuse = storeError {
            _ = try store.update(id: "chat_a", patch: TaskPatch(currentStep: "x"), idempotencyKey: "u-1", now: at(2))
        }
        #expect(reuse == .conflict(#"Idempotency-Key "u-1" was already used for a different update (task "chat_a")"#))
    }

    /// Each key names one request: another body, another task or another kind of write under it is refused.
    @Test func aKeyIsRefusedForAnyOtherRequest() throws {
        var store = TaskStore(generation: "g1")
        var generator = SplitMix64(seed: 5)
        _ = try store.start(
            TaskDraft(taskTitle: "A", requestID: "chat_a"), idempotencyKey: "s-1", now: at(0), using: &generator)
        try store.startTask("chat_b", at: at(1))
        _ = try store.update(id: "chat_a", patch: TaskPatch(currentStep: "x"), idempotencyKey: "u-1", now: at(2))
        let before = store
        let cases: [(() throws -> Void, String)] = [
            (
                {
                    _ = try store.update(
                        id: "chat_a", patch: TaskPatch(currentStep: "x"), idempotencyKey: "s-1", now: at(3))
                },
                #"Idempotency-Key "s-1" was already used for the start of task "chat_a"; use a new key for each write"#
            ),
            (
                {
                    _ = try store.update(
                        id: "chat_b", patch: TaskPatch(currentStep: "x"), idempotencyKey: "u-1", now: at(3))
                },
                #"Idempotency-Key "u-1" was already used for a different update (task "chat_a")"#
            ),
            (
                { _ = try store.end(id: "chat_a", TaskEnd(status: .completed), idempotencyKey: "u-1", now: at(3)) },
                #"Idempotency-Key "u-1" was already used for an update of task "chat_a"; use a new key for each write"#
            ),
            (
                {
                    _ = try store.start(
                        TaskDraft(taskTitle: "C"), idempotencyKey: "u-1", now: at(3), using: &generator)
                },
                #"Idempotency-Key "u-1" was already used for an update of task "chat_a"; use a new key for each write"#
            ),
        ]
        for (write, message) in cases {
            #expect(storeError(write) == .conflict(message))
            #expect(store == before, "a refused write changes nothing")
        }
    }

    @Test func aRetriedEndReturnsTheEndedTaskAndAnotherEndUnderItsKeyIsRefused() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("chat_a", at: at(0))
        let end = TaskEnd(status: .failed, lastError: "boom", expectedRevision: 1)
        let first = try store.end(id: "chat_a", end, idempotencyKey: "e-1", now: at(1))
        #expect(first.durability == .immediate)
        let afterFirst = store
        let retry = try store.end(id: "chat_a", end, idempotencyKey: "e-1", now: at(2))
        #expect(retry.durability == .unchanged)
        #expect(retry.snapshot == first.snapshot)
        #expect(store == afterFirst)
        let other = storeError {
            _ = try store.end(id: "chat_a", TaskEnd(status: .completed), idempotencyKey: "e-1", now: at(3))
        }
        #expect(other == .conflict(#"Idempotency-Key "e-1" was already used for a different end (task "chat_a")"#))
        // A repeat under a fresh key is the plain repeated end: answered, and it files nothing.
        let repeated = try store.end(
            id: "chat_a", TaskEnd(status: .failed, lastError: "boom"), idempotencyKey: "e-2", now: at(4))
        #expect(repeated.durability == .unchanged)
        #expect(store.idempotencyRecords["e-2"] == nil)
    }

    @Test func aRunningTaskKeepsItsNewestUpdateRecordsAndDropsThemWhenItEnds() throws {
        var store = TaskStore(generation: "g1")
        var generator = SplitMix64(seed: 5)
        _ = try store.start(
            TaskDraft(taskTitle: "A", requestID: "chat_a"), idempotencyKey: "s-1", now: at(0), using: &generator)
        let limit = TaskLimits.updateRecordsPerTask
        for index in 0..<(limit + 2) {
            _ = try store.update(
                id: "chat_a", patch: TaskPatch(progress: Double(index) / 10), idempotencyKey: "u-\(index)",
                now: at(Double(index + 1)))
        }
        let updates = store.idempotencyRecords.values.filter { $0.operation == .update }.map(\.key).sorted()
        #expect(updates == (2..<(limit + 2)).map { "u-\($0)" }.sorted())
        // The oldest record is gone: its key is evaluated afresh and applies again.
        let again = try store.update(
            id: "chat_a", patch: TaskPatch(progress: 0), idempotencyKey: "u-0", now: at(20))
        #expect(again.snapshot.progress == 0)
        #expect(again.durability == .lazy)

        _ = try store.end(id: "chat_a", TaskEnd(status: .completed), idempotencyKey: "e-1", now: at(21))
        #expect(store.idempotencyRecords.keys.sorted() == ["e-1", "s-1"])
        #expect(store.consistencyProblems().isEmpty)
    }

    @Test func keyedUpdatesAndEndsSurviveARestartAndRecordsFromBeforeReadAsStarts() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("chat_a", at: at(0))
        _ = try store.update(id: "chat_a", patch: TaskPatch(currentStep: "x"), idempotencyKey: "u-1", now: at(1))
        var restored = try JSONDecoder().decode(TaskStore.self, from: LiveActivityJSON.makeEncoder().encode(store))
        #expect(restored == store)
        let replay = try restored.update(
            id: "chat_a", patch: TaskPatch(currentStep: "x"), idempotencyKey: "u-1", now: at(2))
        #expect(replay.durability == .unchanged)

        let old = #"{"key":"k","request_id":"chat_a","fingerprint":7}"#
        let record = try JSONDecoder().decode(IdempotencyRecord.self, from: Data(old.utf8))
        #expect(record == IdempotencyRecord(key: "k", operation: .start, requestID: "chat_a", fingerprint: 7))
    }

    @Test(arguments: ["", "has space", text("k", 256)])
    func badKeysOnUpdatesAndEndsAreInvalidAndChangeNothing(key: String) throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("chat_a", at: at(0))
        let before = store
        let update = storeError {
            _ = try store.update(id: "chat_a", patch: TaskPatch(currentStep: "x"), idempotencyKey: key, now: at(1))
        }
        let end = storeError {
            _ = try store.end(id: "chat_a", TaskEnd(status: .completed), idempotencyKey: key, now: at(1))
        }
        #expect(update?.field == "Idempotency-Key")
        #expect(end?.field == "Idempotency-Key")
        #expect(store == before)
    }

    @Test func damagedRecordsAreFound() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("chat_a", at: at(0))
        _ = try store.end(id: "chat_a", TaskEnd(status: .completed), idempotencyKey: "e-1", now: at(1))
        store.idempotencyRecords["e-2"] = IdempotencyRecord(
            key: "e-2", operation: .end, requestID: "chat_a", fingerprint: 1)
        store.idempotencyRecords["u-1"] = IdempotencyRecord(
            key: "u-1", operation: .update, requestID: "chat_a", fingerprint: 1)
        let problems = store.consistencyProblems()
        #expect(problems.contains("task chat_a has two idempotency records for its end"))
        #expect(problems.contains("ended task chat_a keeps the update record u-1"))
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(TaskStore.self, from: JSONEncoder().encode(store))
        }
    }
}
