import Foundation
import Testing
import WakeProtocol
import WireFormat

@testable import LiveActivity

@Suite struct TaskStoreUpdateTests {
    @Test func updateChangesFieldsTimeAndRevision() throws {
        var store = TaskStore(generation: "g1")
        let started = try store.startTask("chat_a", at: at(0))
        try store.startTask("chat_b", at: at(1))
        let change = try store.update(
            id: "chat_a", patch: TaskPatch(phase: .observing, currentStep: "Checking", progress: 0.21), now: at(2))
        var expected = started
        expected.phase = .observing
        expected.currentStep = "Checking"
        expected.progress = 0.21
        expected.updatedAt = at(2)
        expected.revision = 3
        #expect(change.snapshot == expected)
        #expect(change.durability == .lazy)
        #expect(change.transitions.isEmpty)
        #expect(store.revision == 3)
        #expect(store.task(id: "chat_a") == expected)
    }

    @Test func unknownIDIsNotFound() {
        var store = TaskStore(generation: "g1")
        let error = storeError { _ = try store.update(id: "nope", patch: TaskPatch(currentStep: "x"), now: at(0)) }
        #expect(error == .notFound(id: "nope"))
        #expect(error?.code == "not_found")
        #expect(error?.description == #"no task with request_id "nope""#)
    }

    @Test func expectedRevisionMustMatchTheTasksRevision() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("chat_a", at: at(0))
        try store.startTask("chat_b", at: at(1))
        // Another task's change moved the store on; chat_a is still at revision 1.
        let ok = try store.update(id: "chat_a", patch: TaskPatch(currentStep: "one", expectedRevision: 1), now: at(2))
        #expect(ok.snapshot.revision == 3)
        let before = store
        let stale = storeError {
            _ = try store.update(id: "chat_a", patch: TaskPatch(currentStep: "two", expectedRevision: 1), now: at(3))
        }
        #expect(stale == .conflict(#"stale expected_revision 1: task "chat_a" is at revision 3"#))
        #expect(store == before)
    }

    @Test func anEndedTaskIsFinal() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("chat_a", at: at(0))
        let ended = try store.end(id: "chat_a", TaskEnd(status: .completed), now: at(1))
        let before = store
        for patch in [
            TaskPatch(currentStep: "x"), TaskPatch(status: .running),
            TaskPatch(progress: 1, expectedRevision: ended.snapshot.revision), TaskPatch(),
        ] {
            let error = storeError { _ = try store.update(id: "chat_a", patch: patch, now: at(2)) }
            #expect(error == .conflict(#"task "chat_a" has ended (status completed) and is final"#))
        }
        #expect(store == before)
    }

    /// Nothing in the snapshot, the revision or the ring changes; the update is still news from the agent
    /// (it keeps the task from going stale), which lives outside the snapshot.
    @Test func aPatchThatChangesNothingIsNotAMutation() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("chat_a", at: at(0))
        let first = try store.update(id: "chat_a", patch: TaskPatch(currentStep: "same"), now: at(1))
        var before = store
        for patch in [TaskPatch(), TaskPatch(currentStep: "same"), TaskPatch(status: .running, currentStep: "same")] {
            let change = try store.update(id: "chat_a", patch: patch, now: at(2))
            #expect(change.snapshot == first.snapshot)
            #expect(change.durability == .unchanged)
        }
        #expect(store.lastNews(of: "chat_a") == at(2))
        before.lastNews["chat_a"] = at(2)
        #expect(store == before)
    }

    @Test func aNoOpPatchStillChecksExpectedRevision() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("chat_a", at: at(0))
        let error = storeError { _ = try store.update(id: "chat_a", patch: TaskPatch(expectedRevision: 7), now: at(1)) }
        #expect(error?.code == "conflict")
    }

    @Test func invalidPatchesAreRefusedBeforeLookingUpTheTask() {
        var store = TaskStore(generation: "g1")
        let error = storeError { _ = try store.update(id: "nope", patch: TaskPatch(progress: -1), now: at(0)) }
        #expect(error?.code == "invalid")
        #expect(error?.field == "progress")
    }

    @Test func updatesThatWouldExceedFourKiBAreRefused() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("chat_a", title: text("🙂", 200), at: at(0))
        _ = try store.update(id: "chat_a", patch: TaskPatch(currentStep: text("🙂", 500)), now: at(1))
        let before = store
        let error = storeError {
            _ = try store.update(
                id: "chat_a",
                patch: TaskPatch(currentAction: text("🙂", 200), currentTarget: text("🙂", 200)), now: at(2))
        }
        #expect(error?.code == "invalid")
        #expect(error?.field == nil)
        #expect(error?.description.contains("over the 4096-byte limit") == true)
        #expect(store == before)
    }
}

@Suite struct TaskStoreEncodedSizeTests {
    /// A draft whose snapshot is exactly `TaskLimits.maxEncodedSnapshotBytes + extra` bytes of JSON.
    static func draft(overBy extra: Int) -> TaskDraft {
        var draft = TaskDraft(
            taskTitle: text("🙂", 200), requestID: "chat_size", currentStep: text("🙂", 500),
            currentAction: text("🙂", 180), lastError: "")
        let base = draft.snapshot(requestID: "chat_size", now: at(0), revision: 1).encodedByteCount
        draft.lastError = text("e", TaskLimits.maxEncodedSnapshotBytes - base + extra)
        return draft
    }

    @Test func exactlyFourKiBIsAcceptedAndOneByteMoreIsNot() throws {
        var store = TaskStore(generation: "g1")
        var generator = SplitMix64(seed: 1)
        let atLimit = try store.start(Self.draft(overBy: 0), idempotencyKey: nil, now: at(0), using: &generator)
        #expect(atLimit.snapshot.encodedByteCount == 4096)
        #expect(try JSONEncoder().encode(atLimit.snapshot).count == 4096)

        var other = TaskStore(generation: "g1")
        let error = storeError {
            _ = try other.start(Self.draft(overBy: 1), idempotencyKey: nil, now: at(0), using: &generator)
        }
        #expect(
            error
                == .invalid(
                    TaskValidationError(
                        field: nil,
                        message: "the task snapshot would be 4097 bytes of JSON, over the 4096-byte limit; "
                            + "shorten current_step, last_error or the other texts")))
        #expect(other.count == 0)
    }

    @Test func slashesCountEscapedSoEitherEncodingFits() {
        let snapshot = TaskDraft(taskTitle: "a/b/c").snapshot(requestID: "r", now: at(0), revision: 1)
        let plain = (try? LiveActivityJSON.makeEncoder().encode(snapshot).count) ?? 0
        #expect(snapshot.encodedByteCount == plain + 2)
    }

    /// Every member at its longest form: each optional present, numbers at their widest, an answer.
    static func everyMember(text: String) -> TaskSnapshot {
        var snapshot = TaskDraft(taskTitle: text, currentStep: text).snapshot(requestID: "r", now: at(0), revision: 1)
        snapshot.phoneID = text
        snapshot.currentAction = text
        snapshot.currentTarget = text
        snapshot.currentApp = text
        snapshot.lastToolName = text
        snapshot.lastError = text
        snapshot.toolStatus = text
        snapshot.locale = text
        snapshot.progress = -2.2250738585072014e-308
        snapshot.staleAfterSeconds = .min
        snapshot.abandonAfterSeconds = .max
        snapshot.dismissAfterSeconds = .min
        snapshot.revision = .max
        let late = Date(timeIntervalSince1970: 253_402_300_799.999)  // 9999-12-31T23:59:59.999Z
        (snapshot.toolStartedAt, snapshot.staleSince, snapshot.endedAt, snapshot.dismissedAt) = (late, late, late, late)
        (snapshot.startedAt, snapshot.updatedAt) = (late, late)
        snapshot.answer = TaskAnswer(answer: .done, answerID: text, phoneID: text, answeredAt: late)
        return snapshot
    }

    @Test(arguments: [
        "", "plain", "a/b/c", #"quote " and backslash \"#, String((0..<32).map { Character(UnicodeScalar($0)!) }),
        "é 🙂 \u{2028}\u{2029}\u{FEFF}\u{7F}", String(repeating: "\u{1F}", count: 700),
        String(repeating: "/", count: 700),
    ])
    func theBoundIsNeverBelowTheCount(text: String) {
        for snapshot in [
            Self.everyMember(text: text),
            TaskDraft(taskTitle: text).snapshot(requestID: "r", now: at(0), revision: 1),
        ] {
            #expect(snapshot.encodedByteCountBound >= snapshot.encodedByteCount)
        }
    }

    @Test func theBoundIsNeverBelowTheCountForRandomTexts() {
        var random = SplitMix64(seed: 26)
        let pool: [Character] = ["a", "/", "\"", "\\", "\n", "\u{0}", "\u{1F}", "é", "🙂", "\u{2028}", " ", "\u{7F}"]
        for _ in 0..<300 {
            let count = Int(random.next() % 120)
            let text = String((0..<count).map { _ in pool[Int(random.next() % UInt64(pool.count))] })
            let snapshot = Self.everyMember(text: text)
            #expect(snapshot.encodedByteCountBound >= snapshot.encodedByteCount, "text: \(text.debugDescription)")
        }
    }

    @Test func aTypicalWriteIsClearedWithoutAnEncoder() {
        var snapshot = TaskDraft(
            taskTitle: "Open Settings", currentStep: "Checking the current screen", currentAction: "tap",
            lastError: ""
        ).snapshot(requestID: "chat_3ce21c274ae", now: at(0), revision: 7)
        snapshot.progress = 0.21
        #expect(snapshot.encodedByteCountBound <= TaskLimits.maxEncodedSnapshotBytes)
    }

    @Test func aProgressThatCannotBeEncodedIsNeverCleared() {
        var snapshot = TaskDraft(taskTitle: "x").snapshot(requestID: "r", now: at(0), revision: 1)
        snapshot.progress = .nan
        #expect(snapshot.encodedByteCount == .max)
        #expect(snapshot.encodedByteCountBound == .max)
    }
}

/// The Aiden profile's members: the tool line with the board's stamp, the locale, and how an end is published.
@Suite struct TaskStoreToolLineTests {
    func start(_ store: inout TaskStore, _ draft: TaskDraft, at time: Date) throws -> TaskChange {
        var generator = SplitMix64(seed: 1)
        return try store.start(draft, idempotencyKey: nil, now: time, using: &generator)
    }

    @Test func theToolLineIsStampedWhenItChangesKeptOnARepeatAndClearedWithIt() throws {
        var store = TaskStore(generation: "g1")
        let started = try start(&store, TaskDraft(taskTitle: "T", toolStatus: "Planning", locale: "de-CH"), at: at(0))
        #expect(started.snapshot.toolStartedAt == at(0) && started.snapshot.locale == "de-CH")
        let rows: [(Double, TaskPatch, String, Date?)] = [
            (1, TaskPatch(currentStep: "Step"), "Planning", at(0)),  // another member: the timer runs on
            (2, TaskPatch(toolStatus: "Taking a screenshot"), "Taking a screenshot", at(2)),
            (3, TaskPatch(currentStep: "Again", toolStatus: "Taking a screenshot"), "Taking a screenshot", at(2)),
            (4, TaskPatch(toolStatus: ""), "", nil),
            (5, TaskPatch(toolStatus: "Typing"), "Typing", at(5)),
        ]
        for (index, (seconds, patch, status, since)) in rows.enumerated() {
            let task = try store.update(id: started.snapshot.requestID, patch: patch, now: at(seconds)).snapshot
            #expect(task.toolStatus == status, "row \(index)")
            #expect(task.toolStartedAt == since, "row \(index)")
        }
    }

    @Test func aStartWithoutAToolLineHasNoStamp() throws {
        var store = TaskStore(generation: "g1")
        let task = try start(&store, TaskDraft(taskTitle: "T"), at: at(0)).snapshot
        #expect(task.toolStatus.isEmpty && task.toolStartedAt == nil && task.locale.isEmpty)
    }

    /// An ended card claims nothing it cannot do: no stop, no bar, the work done, no tool running.
    @Test(arguments: [TaskStatus.completed, .failed, .canceled])
    func anEndIsPublishedWithoutStopProgressOrToolLine(status: TaskStatus) throws {
        var store = TaskStore(generation: "g1")
        let id = try start(
            &store, TaskDraft(taskTitle: "T", toolStatus: "Typing", progress: 0.4, showsProgress: true, canStop: true),
            at: at(0)
        ).snapshot.requestID
        let ended = try store.end(id: id, TaskEnd(status: status), now: at(1)).snapshot
        #expect(ended.canStop == false && ended.showsProgress == false && ended.progress == 1)
        #expect(ended.toolStatus.isEmpty && ended.toolStartedAt == nil)
        let repeated = try store.end(id: id, TaskEnd(status: status), now: at(2))
        #expect(repeated.durability == .unchanged)
    }

    @Test func aStoreWrittenBeforeTheToolLineStillLoads() throws {
        let old = TaskSnapshotCodingTests.contractExample.replacingOccurrences(
            of: #" "tool_status": "", "tool_started_at": null, "locale": "","#, with: "")
        #expect(!old.contains("tool_status"))
        let task = try JSONDecoder().decode(TaskSnapshot.self, from: Data(old.utf8))
        #expect(task.toolStatus.isEmpty && task.toolStartedAt == nil && task.locale.isEmpty)
    }

    @Test(arguments: ["", "en", "en-US", "de-CH", "zh-Hant-TW", "sr-Latn-RS", "es-419", "x-private"])
    func languageTagsInTheirCommonShapeAreTaken(tag: String) {
        #expect(LanguageTag.isValid(tag) == (tag != "x-private"))
    }
}
