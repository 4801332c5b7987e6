import FoundationEssentials
import Testing
import WakeProtocol
import WireFormat

@testable import LiveActivity

/// The person's answers from the phone (`TaskStore.answer`): the rules per answer, what each records, retries
/// by `answer_id`, and what survives a restart. Timelines in simulated time.
@Suite struct TaskStoreAnswerTests {
    /// A running task with `can_stop`, started at `at(0)`.
    static func stoppable(_ id: String = "chat_a", phone: String = "") throws -> TaskStore {
        var store = TaskStore(generation: "g1")
        var generator = SplitMix64(seed: 1)
        let draft = TaskDraft(taskTitle: "Build", requestID: id, phoneID: phone, canStop: true)
        _ = try store.start(draft, idempotencyKey: nil, now: at(0), using: &generator)
        return store
    }

    static func press(_ answer: Answer, _ id: String, phone: String = "") -> AnswerRequest {
        AnswerRequest(answer: answer, answerID: id, phoneID: phone)
    }

    @Test func aStopIsKeptOnTheTaskAndRecordsStopRequested() throws {
        var store = try Self.stoppable()
        let outcome = try store.answer(id: "chat_a", Self.press(.stop, "ans-1", phone: ""), now: at(5))
        let expected = TaskAnswer(answer: .stop, answerID: "ans-1", phoneID: "", answeredAt: at(5))
        #expect(outcome.answer == expected)
        #expect(outcome.change.snapshot.answer == expected)
        #expect(outcome.change.snapshot.revision == 2)
        #expect(outcome.change.snapshot.updatedAt == at(0), "the answer is not news from the agent")
        #expect(outcome.change.durability == .immediate)
        #expect(
            outcome.change.transitions
                == [TransitionEvent(id: 2, requestID: "chat_a", transition: .stopRequested, at: at(5), revision: 2)])
        #expect(store.lastNews(of: "chat_a") == at(0))
    }

    /// Timeline: each row is one press at a time, and what the store answers.
    @Test func aRepeatedPressAndASecondStopRecordNothingNew() throws {
        var store = try Self.stoppable()
        let first = try store.answer(id: "chat_a", Self.press(.stop, "ans-1"), now: at(5))
        let retry = try store.answer(id: "chat_a", Self.press(.stop, "ans-1"), now: at(6))
        let second = try store.answer(id: "chat_a", Self.press(.stop, "ans-2"), now: at(7))
        let secondRetry = try store.answer(id: "chat_a", Self.press(.stop, "ans-2"), now: at(8))
        for later in [retry, second, secondRetry] {
            #expect(later.answer == first.answer)
            #expect(later.change.durability == .unchanged)
            #expect(later.change.transitions.isEmpty)
            #expect(later.change.snapshot == first.change.snapshot)
        }
        #expect(store.revision == 2)
        #expect(store.transitions.lastID == 2)
    }

    @Test func theSameAnswerIDForAnotherAnswerOrTaskIsAConflict() throws {
        var store = try Self.stoppable()
        var generator = SplitMix64(seed: 1)
        _ = try store.start(
            TaskDraft(taskTitle: "Other", requestID: "chat_b", canStop: true), idempotencyKey: nil, now: at(1),
            using: &generator)
        _ = try store.answer(id: "chat_a", Self.press(.stop, "ans-1"), now: at(5))
        let otherTask = storeError { _ = try store.answer(id: "chat_b", Self.press(.stop, "ans-1"), now: at(6)) }
        let otherPhone = storeError {
            _ = try store.answer(id: "chat_a", Self.press(.stop, "ans-1", phone: "p2"), now: at(6))
        }
        for error in [otherTask, otherPhone] {
            #expect(error?.code == "conflict")
            #expect(error?.description.contains("answer_id \"ans-1\" was already used") == true)
        }
        #expect(store.task(id: "chat_b")?.answer == nil)
    }

    @Test func anAgentsIdempotencyKeyNeverMeetsAnAnswerID() throws {
        var store = try Self.stoppable()
        _ = try store.update(id: "chat_a", patch: TaskPatch(currentStep: "one"), idempotencyKey: "ans-1", now: at(1))
        let outcome = try store.answer(id: "chat_a", Self.press(.stop, "ans-1"), now: at(2))
        #expect(outcome.change.changed)
        let replay = try store.update(
            id: "chat_a", patch: TaskPatch(currentStep: "one"), idempotencyKey: "ans-1", now: at(3))
        #expect(replay.durability == .unchanged)
    }

    @Test(arguments: [
        // (can_stop, ended, expected code)
        (false, false, "not_stoppable"),
        (true, true, "task_ended"),
        (false, true, "task_ended"),
    ])
    func aStopNeedsAnActiveStoppableTask(canStop: Bool, ended: Bool, code: String) throws {
        var store = TaskStore(generation: "g1")
        var generator = SplitMix64(seed: 1)
        _ = try store.start(
            TaskDraft(taskTitle: "T", requestID: "chat_a", canStop: canStop), idempotencyKey: nil, now: at(0),
            using: &generator)
        if ended { _ = try store.end(id: "chat_a", TaskEnd(status: .completed), now: at(1)) }
        let before = store
        let error = storeError { _ = try store.answer(id: "chat_a", Self.press(.stop, "ans-1"), now: at(2)) }
        #expect(error?.code == code)
        #expect(TaskStoreError.answerRefused(.notStoppable(id: "x")).code == "not_stoppable")
        #expect(store == before, "a refused answer changes nothing")
    }

    @Test func doneOnAHandoffIsKeptAndRecordsAnsweredWithTheAnswer() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("chat_a", at: at(0))
        _ = try store.update(
            id: "chat_a", patch: TaskPatch(phase: .waitingUser, currentAction: Handoff.requestUserInputAction),
            now: at(1))
        let outcome = try store.answer(id: "chat_a", Self.press(.done, "ans-1", phone: "p1"), now: at(4))
        #expect(outcome.change.snapshot.answer?.answer == .done)
        #expect(outcome.change.snapshot.answer?.phoneID == "p1")
        #expect(outcome.change.snapshot.status == .running)
        #expect(
            outcome.change.transitions
                == [
                    TransitionEvent(
                        id: 3, requestID: "chat_a", transition: .answered, at: at(4), answer: .done, revision: 3)
                ])
    }

    @Test(arguments: [Answer.done, .refuse])
    func anAnswerResolvesNeedsApp(answer: Answer) throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("chat_a", status: .needsApp, at: at(0))
        let outcome = try store.answer(id: "chat_a", Self.press(answer, "ans-1"), now: at(2))
        #expect(outcome.change.snapshot.status == .running)
        #expect(outcome.change.snapshot.answer?.answer == answer)
        #expect(outcome.change.transitions.map(\.transition) == [.answered])
        #expect(outcome.change.transitions.first?.answer == answer)
    }

    @Test(arguments: [Answer.done, .refuse])
    func doneAndRefuseNeedATaskWaitingForThePerson(answer: Answer) throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("chat_a", at: at(0))
        let running = storeError { _ = try store.answer(id: "chat_a", Self.press(answer, "ans-1"), now: at(1)) }
        #expect(running?.code == "not_waiting")
        _ = try store.update(
            id: "chat_a", patch: TaskPatch(phase: .waitingUser, currentAction: Handoff.requestUserInputAction),
            now: at(2))
        _ = try store.end(id: "chat_a", TaskEnd(status: .failed), now: at(3))
        let ended = storeError { _ = try store.answer(id: "chat_a", Self.press(answer, "ans-2"), now: at(4)) }
        #expect(ended?.code == "not_waiting", "an ended task waits for nothing, even in waiting_user")
    }

    /// Timeline: done answers the first request; a new request for input clears it; a stop stays through one.
    @Test func doneIsClearedByTheNextRequestForInputAndAStopIsNot() throws {
        let handoff = TaskPatch(phase: .waitingUser, currentAction: Handoff.requestUserInputAction)
        let back = TaskPatch(phase: .acting, currentAction: "tap")
        var store = try Self.stoppable()
        _ = try store.update(id: "chat_a", patch: handoff, now: at(1))
        _ = try store.answer(id: "chat_a", Self.press(.done, "ans-1"), now: at(2))
        _ = try store.update(id: "chat_a", patch: back, now: at(3))
        #expect(store.task(id: "chat_a")?.answer?.answer == .done, "leaving the wait keeps the answer")
        _ = try store.update(id: "chat_a", patch: handoff, now: at(4))
        #expect(store.task(id: "chat_a")?.answer == nil, "a new request for input clears it")
        _ = try store.answer(id: "chat_a", Self.press(.stop, "ans-2"), now: at(5))
        _ = try store.update(id: "chat_a", patch: back, now: at(6))
        _ = try store.update(id: "chat_a", patch: TaskPatch(status: .needsApp), now: at(7))
        #expect(store.task(id: "chat_a")?.answer?.answer == .stop)
        let done = try store.answer(id: "chat_a", Self.press(.done, "ans-3"), now: at(8))
        #expect(done.answer.answer == .done, "the done is answered and recorded in the ring")
        #expect(done.change.transitions.map(\.transition) == [.answered])
        #expect(done.change.snapshot.answer?.answer == .stop, "but the stop stays on the task")
        #expect(done.change.snapshot.status == .running)
    }

    @Test func endingClearsTheAnswerAndDismissStampsTheEndedTask() throws {
        var store = try Self.stoppable()
        _ = try store.answer(id: "chat_a", Self.press(.stop, "ans-1"), now: at(1))
        let notEnded = storeError { _ = try store.answer(id: "chat_a", Self.press(.dismiss, "ans-2"), now: at(2)) }
        #expect(notEnded?.code == "not_ended")
        let end = try store.end(
            id: "chat_a", TaskEnd(status: .canceled, lastError: "stopped from the phone"), now: at(3))
        #expect(end.snapshot.answer == nil)
        let retry = try store.answer(id: "chat_a", Self.press(.stop, "ans-1"), now: at(4))
        #expect(retry.answer.answerID == "ans-1", "a retry after the end is answered as the first press was")
        #expect(retry.change.durability == .unchanged)

        let dismissed = try store.answer(id: "chat_a", Self.press(.dismiss, "ans-3", phone: "p1"), now: at(5))
        #expect(dismissed.change.snapshot.dismissedAt == at(5))
        #expect(dismissed.change.snapshot.endedAt == at(3))
        #expect(dismissed.change.snapshot.answer == nil)
        #expect(dismissed.change.transitions.map(\.transition) == [.dismissed])
        #expect(dismissed.answer == TaskAnswer(answer: .dismiss, answerID: "ans-3", phoneID: "p1", answeredAt: at(5)))
        let again = try store.answer(id: "chat_a", Self.press(.dismiss, "ans-4"), now: at(6))
        #expect(again.change.durability == .unchanged)
        #expect(again.answer.answeredAt == at(5), "the second dismissal says when the first was")
    }

    @Test func anAbandonedTaskLosesItsAnswerToo() throws {
        var store = try Self.stoppable()
        _ = try store.answer(id: "chat_a", Self.press(.stop, "ans-1"), now: at(1))
        let sweep = store.sweepStale(now: at(Double(TaskLimits.defaultAbandonAfterSeconds)))
        #expect(sweep.abandoned.first?.snapshot.answer == nil)
    }

    @Test func aTaskForAnotherPhoneIsNotFoundAndAnUnknownOneToo() throws {
        var store = try Self.stoppable(phone: "p1")
        let other = storeError {
            _ = try store.answer(id: "chat_a", Self.press(.stop, "ans-1", phone: "p2"), now: at(1))
        }
        let anyPhone = storeError { _ = try store.answer(id: "chat_a", Self.press(.stop, "ans-2"), now: at(1)) }
        let missing = storeError {
            _ = try store.answer(id: "chat_z", Self.press(.stop, "ans-3", phone: "p1"), now: at(1))
        }
        #expect(other == .notFound(id: "chat_a"))
        #expect(anyPhone == .notFound(id: "chat_a"))
        #expect(missing == .notFound(id: "chat_z"))
        #expect(try store.answer(id: "chat_a", Self.press(.stop, "ans-4", phone: "p1"), now: at(2)).change.changed)
    }

    @Test func badIdentifiersAreRefusedByName() throws {
        var store = try Self.stoppable()
        let badID = storeError { _ = try store.answer(id: "chat_a", Self.press(.stop, "has space"), now: at(1)) }
        let badPhone = storeError {
            _ = try store.answer(id: "chat_a", Self.press(.stop, "ans-1", phone: "p/1"), now: at(1))
        }
        #expect(badID?.field == "answer_id")
        #expect(badPhone?.field == "phone_id")
    }

    @Test func aTaskKeepsOnlyItsNewestAnswerRecords() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("chat_a", status: .needsApp, at: at(0))
        for press in 0..<(TaskLimits.answerRecordsPerTask + 3) {
            _ = try store.update(id: "chat_a", patch: TaskPatch(status: .needsApp), now: at(Double(press) + 0.5))
            _ = try store.answer(id: "chat_a", Self.press(.done, "ans-\(press)"), now: at(Double(press) + 1))
        }
        let kept = store.idempotencyRecords.values.filter { $0.operation == .answer }
        #expect(kept.count == TaskLimits.answerRecordsPerTask)
        #expect(store.consistencyProblems().isEmpty)
    }

    @Test func answersAndTheirRecordsSurviveARestartAndAnOldFileStillLoads() throws {
        var store = try Self.stoppable()
        _ = try store.answer(id: "chat_a", Self.press(.stop, "ans-1", phone: "p1"), now: at(1))
        var restored = try JSONDecoder().decode(TaskStore.self, from: JSONEncoder().encode(store))
        #expect(restored == store)
        let retry = try restored.answer(id: "chat_a", Self.press(.stop, "ans-1", phone: "p1"), now: at(9))
        #expect(retry.change.durability == .unchanged)
        #expect(retry.answer.answeredAt == at(1))
        #expect(restored.transitions.events.last?.transition == .stopRequested)

        // A file from before answers: no answer, dismissed_at, operation answer or event answer anywhere.
        var old = try Self.stoppable()
        _ = try old.end(id: "chat_a", TaskEnd(status: .completed), now: at(2))
        var object = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(old))
        guard case var .object(members) = object, case var .array(tasks)? = members["tasks"],
            case var .object(task)? = tasks.first
        else { throw ObjectShape() }
        task["answer"] = nil
        task["dismissed_at"] = nil
        tasks[0] = .object(task)
        members["tasks"] = .array(tasks)
        object = .object(members)
        let loaded = try JSONDecoder().decode(TaskStore.self, from: JSONEncoder().encode(object))
        #expect(loaded.task(id: "chat_a")?.answer == nil)
        #expect(loaded.task(id: "chat_a")?.dismissedAt == nil)
    }

    @Test func invariantsCatchAnAnswerOnAnEndedTaskAndADismissalOfARunningOne() throws {
        var store = try Self.stoppable()
        store.snapshots["chat_a"]?.dismissedAt = at(1)
        #expect(store.consistencyProblems().contains { $0.contains("dismissed_at") })
        store = try Self.stoppable()
        _ = try store.end(id: "chat_a", TaskEnd(status: .completed), now: at(1))
        store.snapshots["chat_a"]?.answer = TaskAnswer(answer: .stop, answerID: "a", answeredAt: at(0))
        #expect(store.consistencyProblems().contains { $0.contains("keeps the answer stop") })
    }

    @Test func theRequestBodyIsStrictOnValuesAndIgnoresUnknownMembers() throws {
        let good = try AnswerRequest.decode(
            from: Array(#"{"answer":"refuse","answer_id":"a-1","phone_id":null,"extra":[1]}"#.utf8))
        #expect(good == AnswerRequest(answer: .refuse, answerID: "a-1", phoneID: ""))
        let cases: [(String, String?)] = [
            (#"{"answer_id":"a"}"#, "answer"),
            (#"{"answer":"pause","answer_id":"a"}"#, "answer"),
            (#"{"answer":1,"answer_id":"a"}"#, "answer"),
            (#"{"answer":"stop"}"#, "answer_id"),
            (#"{"answer":"stop","answer_id":""}"#, "answer_id"),
            (#"{"answer":"stop","answer_id":"a","phone_id":7}"#, "phone_id"),
            (#"[]"#, nil),
            ("", nil),
        ]
        for (body, field) in cases {
            let error = validationError { _ = try AnswerRequest.decode(from: Array(body.utf8)) }
            #expect(error != nil, "\(body) must be refused")
            #expect(error?.field == field, "\(body)")
        }
    }
}

private struct ObjectShape: Error {}
