import FoundationEssentials
import Testing
import WakeProtocol
import WireFormat

@testable import LiveActivity

/// An answer answers what the person saw (docs/protocol.md §3.8): the revision it was shown at goes with it, and
/// the store refuses it as `stale_revision` when the task started again under the same id, or (for done and
/// refuse) began another wait since; progress in between leaves it fresh.
@Suite struct TaskStoreStaleAnswerTests {
    static let handoff = TaskPatch(phase: .waitingUser, currentAction: Handoff.requestUserInputAction)

    static func press(_ answer: Answer, _ id: String, shown: UInt64?) -> AnswerRequest {
        AnswerRequest(answer: answer, answerID: id, revision: shown)
    }

    /// Timeline: the "staging?" question at revision 2, the "production?" question at revision 4. Done pressed on
    /// the old one is refused; done on the new one is taken.
    @Test func doneOnAnOlderQuestionIsRefusedAndOnTheShownOneTaken() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("chat_a", at: at(0))
        _ = try store.update(
            id: "chat_a",
            patch: TaskPatch(
                phase: .waitingUser, currentStep: "Deploy to staging?", currentAction: Handoff.requestUserInputAction),
            now: at(1))
        let staging = try #require(store.task(id: "chat_a")?.revision)
        _ = try store.update(id: "chat_a", patch: TaskPatch(phase: .acting, currentAction: "deploy"), now: at(2))
        _ = try store.update(
            id: "chat_a",
            patch: TaskPatch(
                phase: .waitingUser, currentStep: "Deploy to production?", currentAction: Handoff.requestUserInputAction
            ),
            now: at(3))
        let production = try #require(store.task(id: "chat_a")?.revision)
        let before = store
        let stale = storeError {
            _ = try store.answer(id: "chat_a", Self.press(.done, "ans-1", shown: staging), now: at(4))
        }
        #expect(stale?.code == "stale_revision")
        #expect(stale?.description.contains("revision \(staging)") == true)
        #expect(store == before, "a stale answer records nothing")
        let taken = try store.answer(id: "chat_a", Self.press(.done, "ans-2", shown: production), now: at(5))
        #expect(taken.answer.answer == .done)
        #expect(taken.change.transitions.first?.revision == taken.change.snapshot.revision)
    }

    /// Progress and steps after the card was drawn do not make a stop or a done stale: only a new start or a new wait does.
    @Test(arguments: [Answer.stop, .done, .refuse])
    func progressInBetweenLeavesTheAnswerFresh(answer: Answer) throws {
        var store = try TaskStoreAnswerTests.stoppable()
        _ = try store.update(id: "chat_a", patch: Self.handoff, now: at(1))
        let shown = try #require(store.task(id: "chat_a")?.revision)
        for second in 2...5 {
            _ = try store.update(id: "chat_a", patch: TaskPatch(progress: Double(second) / 10), now: at(Double(second)))
        }
        #expect(try #require(store.task(id: "chat_a")?.revision) > shown)
        let outcome = try store.answer(id: "chat_a", Self.press(answer, "ans-1", shown: shown), now: at(6))
        #expect(outcome.answer.answer == answer)
    }

    /// A request id used again by a new task (the first was pruned): a stop or a dismiss shown for the old task
    /// never acts on the new one.
    @Test(arguments: [Answer.stop, .dismiss])
    func anAnswerForAnEarlierTaskUnderTheSameIDIsRefused(answer: Answer) throws {
        var store = TaskStore(generation: "g1")
        var generator = SplitMix64(seed: 1)
        let draft = TaskDraft(taskTitle: "Old", requestID: "chat_a", canStop: true)
        _ = try store.start(draft, idempotencyKey: nil, now: at(0), using: &generator)
        _ = try store.end(id: "chat_a", TaskEnd(status: .completed, dismissAfterSeconds: 0), now: at(1))
        let shownOld = store.revision
        store.prune(now: at(2), retention: tenMinutes)
        #expect(store.task(id: "chat_a") == nil)
        _ = try store.start(
            TaskDraft(taskTitle: "New", requestID: "chat_a", canStop: true), idempotencyKey: nil, now: at(3),
            using: &generator)
        if answer == .dismiss { _ = try store.end(id: "chat_a", TaskEnd(status: .completed), now: at(4)) }
        let stale = storeError {
            _ = try store.answer(id: "chat_a", Self.press(answer, "ans-1", shown: shownOld), now: at(5))
        }
        #expect(stale?.code == "stale_revision")
        let fresh = try #require(store.task(id: "chat_a")?.revision)
        #expect(
            try store.answer(id: "chat_a", Self.press(answer, "ans-2", shown: fresh), now: at(6)).answer.answer
                == answer)
    }

    @Test func aRevisionTheTaskNeverHadIsStaleAndNoneIsNeverStale() throws {
        var store = try TaskStoreAnswerTests.stoppable()
        let now = try #require(store.task(id: "chat_a")?.revision)
        let ahead = storeError {
            _ = try store.answer(id: "chat_a", Self.press(.stop, "ans-1", shown: now + 1), now: at(1))
        }
        #expect(ahead?.code == "stale_revision")
        _ = try store.update(id: "chat_a", patch: Self.handoff, now: at(2))
        #expect(
            try store.answer(id: "chat_a", Self.press(.done, "ans-2", shown: nil), now: at(3)).answer.answer == .done)
    }

    /// A ring that lost events older than what the answer was shown at cannot say nothing happened since: then only
    /// the very revision shown is fresh.
    @Test func anEvictedRingFallsBackToTheExactRevision() throws {
        var store = TaskStore(generation: "g1", transitionCapacity: 2)
        try store.startTask("chat_a", at: at(0))
        _ = try store.update(id: "chat_a", patch: Self.handoff, now: at(1))
        let shown = try #require(store.task(id: "chat_a")?.revision)
        try store.startTask("chat_b", at: at(2))
        try store.startTask("chat_c", at: at(3))
        #expect(store.transitions.events.first?.revision.map { $0 > shown } == true, "the handoff was evicted")
        let exact = try store.answer(id: "chat_a", Self.press(.refuse, "ans-1", shown: shown), now: at(4))
        #expect(exact.answer.answer == .refuse)
        _ = try store.update(id: "chat_a", patch: TaskPatch(progress: 0.5), now: at(5))
        _ = try store.update(id: "chat_a", patch: Self.handoff, now: at(6))
        let later = try #require(store.task(id: "chat_a")?.revision)
        try store.startTask("chat_d", at: at(7))
        try store.startTask("chat_e", at: at(8))
        let old = storeError {
            _ = try store.answer(id: "chat_a", Self.press(.done, "ans-2", shown: later - 1), now: at(9))
        }
        #expect(old?.code == "stale_revision")
    }

    @Test func theRequestBodyTakesTheRevisionAsAWholeNumber() throws {
        let good = try AnswerRequest.decode(from: Array(#"{"answer":"done","answer_id":"a-1","revision":17}"#.utf8))
        #expect(good == AnswerRequest(answer: .done, answerID: "a-1", revision: 17))
        let none = try AnswerRequest.decode(from: Array(#"{"answer":"done","answer_id":"a-1","revision":null}"#.utf8))
        #expect(none.revision == nil)
        for body in [#""17""#, "-1", "1.5", "true"] {
            let error = validationError {
                _ = try AnswerRequest.decode(
                    from: Array(#"{"answer":"done","answer_id":"a","revision":\#(body)}"#.utf8))
            }
            #expect(error?.field == "revision", "\(body)")
        }
    }
}
