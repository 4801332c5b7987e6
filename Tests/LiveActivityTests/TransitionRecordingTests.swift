import FoundationEssentials
import Testing
import WireFormat

@testable import LiveActivity

@Suite struct TransitionRecordingTests {
    static let handoff = TaskPatch(phase: .waitingUser, currentAction: "request_user_input")

    @Test func handoffIsRecordedOnlyWhenEnteringAndAgainOnReentry() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("a", at: at(0))
        let steps: [(TaskPatch, [Transition], Durability)] = [
            (Self.handoff, [.handoff], .immediate),
            (TaskPatch(currentStep: "Waiting for you"), [], .lazy),
            (TaskPatch(progress: 0.5), [], .lazy),
            (TaskPatch(phase: .acting), [], .lazy),
            (TaskPatch(phase: .waitingUser), [.handoff], .immediate),
            (TaskPatch(currentAction: "tap"), [], .lazy),
            (TaskPatch(currentAction: "request_user_input"), [.handoff], .immediate),
        ]
        for (index, (patch, expected, durability)) in steps.enumerated() {
            let change = try store.update(id: "a", patch: patch, now: at(Double(index + 1)))
            #expect(change.transitions.map(\.transition) == expected, "step \(index)")
            #expect(change.durability == durability, "step \(index)")
        }
        #expect(store.transitions.events.filter { $0.transition == .handoff }.count == 3)
    }

    @Test func foregroundRecoveryIsRecordedOnEnteringNeedsApp() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("a", at: at(0))
        let steps: [(TaskPatch, [Transition])] = [
            (TaskPatch(status: .needsApp), [.foregroundRecovery]),
            (TaskPatch(status: .needsApp, currentStep: "still"), []),
            (TaskPatch(status: .running), []),
            (TaskPatch(status: .needsApp), [.foregroundRecovery]),
            (TaskPatch(status: .needsApp, phase: .waitingUser, currentAction: "request_user_input"), [.handoff]),
        ]
        for (index, (patch, expected)) in steps.enumerated() {
            let change = try store.update(id: "a", patch: patch, now: at(Double(index + 1)))
            #expect(change.transitions.map(\.transition) == expected, "step \(index)")
        }
    }

    @Test func eventsCarryTheTaskAndTheTimeOfTheChange() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("a", at: at(0))
        try store.startTask("b", at: at(1))
        _ = try store.update(
            id: "a",
            patch: TaskPatch(
                status: .needsApp, phase: .waitingUser,
                currentAction: "request_user_input"), now: at(2.5))
        _ = try store.end(id: "b", TaskEnd(status: .canceled), now: at(3))
        #expect(
            store.transitions.events == [
                TransitionEvent(id: 1, requestID: "a", transition: .started, at: at(0), revision: 1),
                TransitionEvent(id: 2, requestID: "b", transition: .started, at: at(1), revision: 2),
                TransitionEvent(id: 3, requestID: "a", transition: .foregroundRecovery, at: at(2.5), revision: 3),
                TransitionEvent(id: 4, requestID: "a", transition: .handoff, at: at(2.5), revision: 3),
                TransitionEvent(id: 5, requestID: "b", transition: .canceled, at: at(3), revision: 4),
            ])
    }

    @Test func eventsCarryTheTasksPhoneAndOldRingsLoadWithAnyPhone() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("mine", phone: "phone-1", at: at(0))
        try store.startTask("any", phone: "", at: at(1))
        _ = try store.end(id: "mine", TaskEnd(status: .completed), now: at(2))
        #expect(store.transitions.events.map(\.phoneID) == ["phone-1", "", "phone-1"])

        let old =
            #"{"generation":"g1","capacity":4,"last_id":1,"#
            + #""events":[{"id":1,"request_id":"a","transition":"started","at":"2026-06-12T07:00:00Z"}]}"#
        let ring = try JSONDecoder().decode(TransitionLog.self, from: Data(old.utf8))
        #expect(ring.events == [TransitionEvent(id: 1, requestID: "a", transition: .started, at: at(0), phoneID: "")])
    }

    @Test func changesTable() {
        let base = TaskDraft(taskTitle: "t").snapshot(requestID: "a", now: at(0), revision: 1)
        var needsApp = base
        needsApp.status = .needsApp
        var awaiting = base
        awaiting.phase = .waitingUser
        awaiting.currentAction = Handoff.requestUserInputAction
        var completed = awaiting
        completed.status = .completed
        var failed = needsApp
        failed.status = .failed
        let cases: [(TaskSnapshot?, TaskSnapshot, [Transition])] = [
            (nil, base, [.started]),
            (nil, needsApp, [.started, .foregroundRecovery]),
            (base, base, []),
            (base, needsApp, [.foregroundRecovery]),
            (needsApp, needsApp, []),
            (base, awaiting, [.handoff]),
            (awaiting, awaiting, []),
            (awaiting, completed, [.completed]),
            (needsApp, failed, [.failed]),
            (completed, completed, []),
        ]
        for (old, new, expected) in cases {
            #expect(Transition.changes(from: old, to: new) == expected)
        }
    }
}
