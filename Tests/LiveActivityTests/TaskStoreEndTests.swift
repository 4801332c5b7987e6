import FoundationEssentials
import Testing
import WireFormat

@testable import LiveActivity

@Suite struct TaskStoreEndTests {
    @Test func theEndKeepsTheAgentsDismissalTimeAndARepeatMustAgree() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("a", at: at(0))
        let ended = try store.end(id: "a", TaskEnd(status: .completed, dismissAfterSeconds: 30), now: at(1))
        #expect(ended.snapshot.dismissAfterSeconds == 30)
        #expect(try store.end(id: "a", TaskEnd(status: .completed), now: at(2)).durability == .unchanged)
        #expect(
            try store.end(id: "a", TaskEnd(status: .completed, dismissAfterSeconds: 30), now: at(2)).durability
                == .unchanged)
        let conflict = storeError {
            _ = try store.end(id: "a", TaskEnd(status: .completed, dismissAfterSeconds: 0), now: at(2))
        }
        #expect(conflict?.code == "conflict")
        try store.startTask("b", at: at(3))
        #expect(try store.end(id: "b", TaskEnd(status: .failed), now: at(4)).snapshot.dismissAfterSeconds == nil)
    }

    @Test(arguments: [
        (TaskStatus.completed, Transition.completed),
        (.failed, .failed),
        (.canceled, .canceled),
    ])
    func endSetsTheTerminalStateAndRecordsItsTransition(status: TaskStatus, transition: Transition) throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("chat_a", at: at(0))
        let change = try store.end(id: "chat_a", TaskEnd(status: status, lastError: "why"), now: at(3.5))
        #expect(change.snapshot.status == status)
        #expect(change.snapshot.lastError == "why")
        #expect(change.snapshot.endedAt == at(3.5))
        #expect(change.snapshot.updatedAt == at(3.5))
        #expect(change.snapshot.startedAt == at(0))
        #expect(change.snapshot.revision == 2)
        #expect(change.durability == .immediate)
        #expect(
            change.transitions
                == [TransitionEvent(id: 2, requestID: "chat_a", transition: transition, at: at(3.5), revision: 2)])
    }

    @Test func anAbsentLastErrorKeepsTheOneReportedBefore() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("chat_a", at: at(0))
        _ = try store.update(id: "chat_a", patch: TaskPatch(lastError: "tap missed"), now: at(1))
        let change = try store.end(id: "chat_a", TaskEnd(status: .failed), now: at(2))
        #expect(change.snapshot.lastError == "tap missed")
    }

    @Test func repeatingTheSameEndReturnsTheEndedTaskUnchanged() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("chat_a", at: at(0))
        let first = try store.end(
            id: "chat_a", TaskEnd(status: .failed, lastError: "boom", expectedRevision: 1),
            now: at(1))
        let before = store
        for repeated in [
            TaskEnd(status: .failed, lastError: "boom", expectedRevision: 1),
            TaskEnd(status: .failed), TaskEnd(status: .failed, lastError: "boom"),
        ] {
            let change = try store.end(id: "chat_a", repeated, now: at(9))
            #expect(change.snapshot == first.snapshot)
            #expect(change.durability == .unchanged)
            #expect(change.transitions.isEmpty)
        }
        #expect(store == before)
    }

    @Test(arguments: [
        TaskEnd(status: .completed),
        TaskEnd(status: .canceled, lastError: "boom"),
        TaskEnd(status: .failed, lastError: "another reason"),
        TaskEnd(status: .failed, lastError: ""),
    ])
    func endingDifferentlyAfterTheEndIsAConflict(end: TaskEnd) throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("chat_a", at: at(0))
        _ = try store.end(id: "chat_a", TaskEnd(status: .failed, lastError: "boom"), now: at(1))
        let before = store
        let error = storeError { _ = try store.end(id: "chat_a", end, now: at(2)) }
        #expect(error == .conflict(#"task "chat_a" has already ended with status failed"#))
        #expect(store == before)
    }

    @Test func staleExpectedRevisionOnEndIsAConflict() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("chat_a", at: at(0))
        _ = try store.update(id: "chat_a", patch: TaskPatch(currentStep: "s"), now: at(1))
        let error = storeError {
            _ = try store.end(id: "chat_a", TaskEnd(status: .completed, expectedRevision: 1), now: at(2))
        }
        #expect(error == .conflict(#"stale expected_revision 1: task "chat_a" is at revision 2"#))
        #expect(store.task(id: "chat_a")?.status == .running)
    }

    @Test func unknownAndInvalidEnds() {
        var store = TaskStore(generation: "g1")
        let unknown = storeError { _ = try store.end(id: "x", TaskEnd(status: .completed), now: at(0)) }
        #expect(unknown == .notFound(id: "x"))
        #expect(storeError { _ = try store.end(id: "x", TaskEnd(status: .running), now: at(0)) }?.code == "invalid")
    }
}
