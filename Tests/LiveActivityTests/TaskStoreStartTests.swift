import FoundationEssentials
import Testing
import WakeProtocol

@testable import LiveActivity

@Suite struct TaskStoreStartTests {
    @Test func startFillsDefaultsAndRecordsStarted() throws {
        var store = TaskStore(generation: "g1")
        var generator = SplitMix64(seed: 7)
        var expectedGenerator = SplitMix64(seed: 7)
        let hex = String(expectedGenerator.next(), radix: 16)
        let change = try store.start(
            TaskDraft(taskTitle: "Open Settings"), idempotencyKey: nil, now: at(0.5),
            using: &generator)
        #expect(
            change.snapshot
                == TaskSnapshot(
                    requestID: "chat_" + String(repeating: "0", count: 16 - hex.count) + hex, phoneID: "",
                    status: .running, phase: .planning, taskTitle: "Open Settings", progress: 0, showsProgress: false,
                    canStop: false, requiresApp: false, startedAt: at(0.5), updatedAt: at(0.5), endedAt: nil,
                    revision: 1))
        #expect(change.snapshot.requestID.count == 21)
        #expect(change.durability == .immediate)
        #expect(change.transitions.map(\.transition) == [.started])
        #expect(store.revision == 1)
        #expect(store.task(id: change.snapshot.requestID) == change.snapshot)
    }

    @Test func progressGivenMeansShowsProgressUnlessSaidOtherwise() throws {
        var store = TaskStore(generation: "g1")
        var generator = SplitMix64(seed: 1)
        let shown = try store.start(
            TaskDraft(taskTitle: "a", progress: 0.3), idempotencyKey: nil, now: at(0),
            using: &generator)
        let hidden = try store.start(
            TaskDraft(taskTitle: "b", progress: 0.3, showsProgress: false),
            idempotencyKey: nil, now: at(0), using: &generator)
        #expect(shown.snapshot.showsProgress)
        #expect(!hidden.snapshot.showsProgress)
    }

    @Test func startingAnExistingRequestIDIsAConflict() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("chat_a", at: at(0))
        let before = store
        let error = storeError { _ = try store.startTask("chat_a", at: at(1)) }
        #expect(error == .conflict(#"a task with request_id "chat_a" already exists"#))
        #expect(error?.code == "conflict")
        #expect(store == before)
    }

    @Test func retriedStartWithTheSameKeyReturnsTheFirstTaskWithoutMutating() throws {
        var store = TaskStore(generation: "g1")
        var generator = SplitMix64(seed: 3)
        let draft = TaskDraft(taskTitle: "Open Settings", phoneID: "p1")
        let first = try store.start(draft, idempotencyKey: "key-1", now: at(0), using: &generator)
        let afterFirst = store
        let retry = try store.start(draft, idempotencyKey: "key-1", now: at(5), using: &generator)
        #expect(retry.snapshot == first.snapshot)
        #expect(retry.durability == .unchanged)
        #expect(!retry.changed)
        #expect(retry.transitions.isEmpty)
        #expect(store == afterFirst)

        _ = try store.update(id: first.snapshot.requestID, patch: TaskPatch(currentStep: "later"), now: at(6))
        let lateRetry = try store.start(draft, idempotencyKey: "key-1", now: at(7), using: &generator)
        #expect(lateRetry.snapshot.requestID == first.snapshot.requestID)
        #expect(lateRetry.snapshot.currentStep == "later")
        #expect(store.count == 1)

        let other = try store.start(draft, idempotencyKey: "key-2", now: at(8), using: &generator)
        #expect(other.snapshot.requestID != first.snapshot.requestID)
        #expect(store.count == 2)
    }

    @Test func reusingAKeyForADifferentBodyIsAConflict() throws {
        var store = TaskStore(generation: "g1")
        var generator = SplitMix64(seed: 3)
        let first = try store.start(
            TaskDraft(taskTitle: "A", requestID: "chat_a"), idempotencyKey: "k", now: at(0),
            using: &generator)
        let before = store
        let error = storeError {
            _ = try store.start(TaskDraft(taskTitle: "B"), idempotencyKey: "k", now: at(1), using: &generator)
        }
        #expect(error == .conflict(#"Idempotency-Key "k" was already used for a different start (task "chat_a")"#))
        #expect(store == before)
        #expect(first.snapshot.requestID == "chat_a")
    }

    @Test(arguments: ["", "has space", "tab\tkey", "ünicode", text("k", 256)])
    func badIdempotencyKeysAreInvalid(key: String) {
        var store = TaskStore(generation: "g1")
        var generator = SplitMix64(seed: 3)
        let error = storeError {
            _ = try store.start(TaskDraft(taskTitle: "A"), idempotencyKey: key, now: at(0), using: &generator)
        }
        #expect(error?.code == "invalid")
        #expect(error?.field == "Idempotency-Key")
        #expect(store.count == 0)
    }

    @Test func aKeyOf255VisibleCharactersIsAccepted() throws {
        var store = TaskStore(generation: "g1")
        var generator = SplitMix64(seed: 3)
        let change = try store.start(
            TaskDraft(taskTitle: "A"), idempotencyKey: text("~", 255), now: at(0),
            using: &generator)
        #expect(change.changed)
    }

    @Test func generatedIDsAreRedrawnOnAClashAndGiveUpWhenTheGeneratorIsStuck() throws {
        var store = TaskStore(generation: "g1")
        var stuck = ConstantGenerator(value: 0x2A)
        let first = try store.start(TaskDraft(taskTitle: "A"), idempotencyKey: nil, now: at(0), using: &stuck)
        #expect(first.snapshot.requestID == "chat_000000000000002a")
        let error = storeError {
            _ = try store.start(TaskDraft(taskTitle: "B"), idempotencyKey: nil, now: at(1), using: &stuck)
        }
        #expect(error == .conflict("could not generate an unused request_id; pass one in the request"))
    }

    @Test func invalidDraftsLeaveTheStoreUnchanged() {
        var store = TaskStore(generation: "g1")
        var generator = SplitMix64(seed: 3)
        let before = store
        let error = storeError {
            _ = try store.start(
                TaskDraft(taskTitle: "A", progress: 2), idempotencyKey: "k", now: at(0),
                using: &generator)
        }
        #expect(
            error
                == .invalid(
                    TaskValidationError(
                        field: "progress",
                        message: "must be a number between 0 and 1, got 2.0")))
        #expect(error?.field == "progress")
        #expect(store == before)
    }

    @Test func startingInNeedsAppOrHandoffRecordsThoseTransitionsToo() throws {
        var store = TaskStore(generation: "g1")
        var generator = SplitMix64(seed: 3)
        let needsApp = try store.start(
            TaskDraft(taskTitle: "A", status: .needsApp), idempotencyKey: nil,
            now: at(0), using: &generator)
        #expect(needsApp.transitions.map(\.transition) == [.started, .foregroundRecovery])
        let handoff = try store.start(
            TaskDraft(taskTitle: "B", phase: .waitingUser, currentAction: "request_user_input"),
            idempotencyKey: nil, now: at(1), using: &generator)
        #expect(handoff.transitions.map(\.transition) == [.started, .handoff])
        #expect(store.transitions.events.map(\.id) == [1, 2, 3, 4])
    }

    @Test func aFullStoreEvictsTheTaskThatEndedFirst() throws {
        var store = TaskStore(generation: "g1", capacity: 3)
        try store.startTask("a", at: at(0))
        try store.startTask("b", at: at(1))
        try store.startTask("c", at: at(2))
        let full = storeError { _ = try store.startTask("d", at: at(3)) }
        #expect(full == .capacityExceeded(capacity: 3))
        #expect(full?.code == "capacity_exceeded")

        _ = try store.end(id: "c", TaskEnd(status: .completed), now: at(4))
        _ = try store.end(id: "a", TaskEnd(status: .failed), now: at(5))
        try store.startTask("d", at: at(6))
        #expect(store.tasks.map(\.requestID) == ["d", "a", "b"])
        try store.startTask("e", at: at(7))
        #expect(store.tasks.map(\.requestID) == ["e", "d", "b"])
        #expect(storeError { _ = try store.startTask("f", at: at(8)) } == .capacityExceeded(capacity: 3))
    }

    @Test func evictionDropsTheEvictedTasksIdempotencyRecord() throws {
        var store = TaskStore(generation: "g1", capacity: 1)
        var generator = SplitMix64(seed: 3)
        let draft = TaskDraft(taskTitle: "A")
        let first = try store.start(draft, idempotencyKey: "k", now: at(0), using: &generator)
        _ = try store.end(id: first.snapshot.requestID, TaskEnd(status: .completed), now: at(1))
        let second = try store.start(TaskDraft(taskTitle: "B"), idempotencyKey: "k2", now: at(2), using: &generator)
        #expect(store.task(id: first.snapshot.requestID) == nil)
        #expect(store.idempotencyRecords.keys.sorted() == ["k2"])
        #expect(second.snapshot.revision == 3)
    }
}
