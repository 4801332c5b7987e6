import FoundationEssentials
import Testing
import WakeProtocol
import WireFormat

@testable import LiveActivity

/// Timeline tables for "which task phone P shows first, and how many others it may see" (docs/protocol.md §3.4):
/// waiting for the person, then active with news, then active stale, then ended and not dismissed.
@Suite struct TaskStoreSelectionTests {
    enum Step {
        case start(String, phone: String, at: Double)
        case update(String, at: Double)
        /// A handoff: `phase=waiting_user`, `current_action=request_user_input`.
        case handoff(String, at: Double)
        /// `status=needs_app`.
        case needsApp(String, at: Double)
        /// Back to `running`, acting.
        case resume(String, at: Double)
        /// The stale sweep at `at`.
        case sweep(at: Double)
        case end(String, TaskStatus, at: Double)
        /// An end with `dismiss_after_seconds`.
        case endDismissing(String, after: Int, at: Double)
        /// The person dismissed the ended task.
        case dismiss(String, at: Double)
        /// At `at` seconds, phone `phone` must be shown task `expected` (nil: `not_found`).
        case expect(phone: String, at: Double, String?)
        /// The same, and the other tasks it may see: active (not waiting) and waiting for the person.
        case expectShown(phone: String, at: Double, String?, active: Int, waiting: Int)
    }

    /// Runs `steps` in order against a fresh store with a 10-minute retention. Tasks go stale after 60 s.
    static func run(_ steps: [Step], sourceLocation: SourceLocation = #_sourceLocation) throws {
        var store = TaskStore(generation: "g1")
        for step in steps {
            switch step {
            case .start(let id, let phone, let time):
                var generator = SplitMix64(seed: 1)
                var draft = TaskDraft(taskTitle: "Task", requestID: id, phoneID: phone)
                draft.staleAfterSeconds = 60
                draft.abandonAfterSeconds = 6000
                _ = try store.start(draft, idempotencyKey: nil, now: at(time), using: &generator)
            case .update(let id, let time):
                _ = try store.update(id: id, patch: TaskPatch(currentStep: "at \(time)"), now: at(time))
            case .handoff(let id, let time):
                let patch = TaskPatch(phase: .waitingUser, currentAction: Handoff.requestUserInputAction)
                _ = try store.update(id: id, patch: patch, now: at(time))
            case .needsApp(let id, let time):
                _ = try store.update(id: id, patch: TaskPatch(status: .needsApp), now: at(time))
            case .resume(let id, let time):
                let patch = TaskPatch(status: .running, phase: .acting, currentAction: "tap")
                _ = try store.update(id: id, patch: patch, now: at(time))
            case .sweep(let time):
                _ = store.sweepStale(now: at(time))
            case .end(let id, let status, let time):
                _ = try store.end(id: id, TaskEnd(status: status), now: at(time))
            case .endDismissing(let id, let seconds, let time):
                _ = try store.end(id: id, TaskEnd(status: .completed, dismissAfterSeconds: seconds), now: at(time))
            case .dismiss(let id, let time):
                var task = try #require(store.snapshots[id], sourceLocation: sourceLocation)
                task.dismissedAt = at(time)
                _ = store.commit(task, replacing: store.snapshots[id], now: at(time))
            case .expect(let phone, let time, let expected):
                let shown = store.current(forPhone: phone, now: at(time), retention: tenMinutes)
                #expect(shown?.requestID == expected, "phone \(phone) at t+\(time)", sourceLocation: sourceLocation)
            case .expectShown(let phone, let time, let expected, let active, let waiting):
                let selection = store.selection(forPhone: phone, now: at(time), retention: tenMinutes)
                #expect(
                    selection.current?.requestID == expected, "phone \(phone) at t+\(time)",
                    sourceLocation: sourceLocation)
                #expect(
                    selection.others == OtherTasks(active: active, waiting: waiting),
                    "others for phone \(phone) at t+\(time)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func whatWaitsForThePersonComesFirst() throws {
        try Self.run([
            .start("a", phone: "", at: 0),
            .start("b", phone: "", at: 1),
            .expectShown(phone: "p1", at: 1, "b", active: 1, waiting: 0),
            .handoff("a", at: 2),
            // Progress on "b" no longer pushes the waiting task off the card.
            .update("b", at: 3),
            .expectShown(phone: "p1", at: 3, "a", active: 1, waiting: 0),
            .needsApp("b", at: 4),
            .expectShown(phone: "p1", at: 4, "b", active: 0, waiting: 1),
            .update("a", at: 5),
            .expectShown(phone: "p1", at: 5, "a", active: 0, waiting: 1),
            .resume("a", at: 6),
            .expectShown(phone: "p1", at: 6, "b", active: 1, waiting: 0),
            .resume("b", at: 7),
            .expectShown(phone: "p1", at: 7, "b", active: 1, waiting: 0),
        ])
    }

    @Test func activeWithNewsThenStaleThenEnded() throws {
        try Self.run([
            .start("old", phone: "", at: 0),
            .start("done", phone: "", at: 1),
            .end("done", .completed, at: 2),
            .start("live", phone: "", at: 30),
            .expectShown(phone: "p1", at: 30, "live", active: 1, waiting: 0),
            // "old" goes stale at 60 (a new revision), "live" still has news.
            .sweep(at: 60),
            .expectShown(phone: "p1", at: 61, "live", active: 1, waiting: 0),
            .end("live", .completed, at: 62),
            .expectShown(phone: "p1", at: 63, "old", active: 0, waiting: 0),
            .end("old", .failed, at: 64),
            .expectShown(phone: "p1", at: 64, "old", active: 0, waiting: 0),
        ])
    }

    @Test func aStaleWaitingTaskStillComesBeforeALiveRunningOne() throws {
        try Self.run([
            .start("ask", phone: "", at: 0),
            .handoff("ask", at: 1),
            .start("run", phone: "", at: 50),
            .sweep(at: 61),
            .update("run", at: 70),
            .expectShown(phone: "p1", at: 70, "ask", active: 1, waiting: 0),
            // Among waiting tasks, one with news goes before a stale one.
            .start("ask2", phone: "", at: 80),
            .handoff("ask2", at: 80),
            .expectShown(phone: "p1", at: 80, "ask2", active: 1, waiting: 1),
        ])
    }

    @Test func othersCountOnlyTasksThisPhoneMaySee() throws {
        try Self.run([
            .start("mine", phone: "p1", at: 0),
            .start("any", phone: "", at: 1),
            .start("theirs", phone: "p2", at: 2),
            .handoff("theirs", at: 3),
            .start("ended", phone: "", at: 4),
            .end("ended", .completed, at: 5),
            .expectShown(phone: "p1", at: 5, "any", active: 1, waiting: 0),
            .expectShown(phone: "p2", at: 5, "theirs", active: 1, waiting: 0),
            .expectShown(phone: "p3", at: 5, "any", active: 0, waiting: 0),
            .end("any", .completed, at: 6),
            .end("mine", .completed, at: 7),
            .expectShown(phone: "p3", at: 7, "any", active: 0, waiting: 0),
            .expectShown(phone: "p1", at: 7, "mine", active: 0, waiting: 0),
            .expectShown(phone: "p3", at: 700, nil, active: 0, waiting: 0),
        ])
    }

    @Test func anEndedTaskStaysForItsDismissalTimeAtMostTheRetention() throws {
        try Self.run([
            .start("quick", phone: "", at: 0),
            .start("kept", phone: "", at: 1),
            .start("long", phone: "", at: 2),
            .start("now", phone: "", at: 3),
            .endDismissing("long", after: 86_400, at: 10),
            .endDismissing("kept", after: 30, at: 11),
            .endDismissing("quick", after: 5, at: 12),
            .endDismissing("now", after: 0, at: 13),
            // "now" is gone at once; "quick" is the newest still shown.
            .expect(phone: "p", at: 13, "quick"),
            .expect(phone: "p", at: 16.999, "quick"),
            .expect(phone: "p", at: 17, "kept"),
            .expect(phone: "p", at: 40.999, "kept"),
            .expect(phone: "p", at: 41, "long"),
            // A day asked for, the board's 10-minute retention given.
            .expect(phone: "p", at: 609.999, "long"),
            .expect(phone: "p", at: 610, nil),
        ])
    }

    @Test func aDismissedTaskLeavesTheCardAtOnce() throws {
        try Self.run([
            .start("a", phone: "", at: 0),
            .start("b", phone: "", at: 1),
            .end("a", .completed, at: 2),
            .end("b", .canceled, at: 3),
            .expect(phone: "p", at: 3, "b"),
            .dismiss("b", at: 4),
            .expect(phone: "p", at: 4, "a"),
            .dismiss("a", at: 5),
            .expect(phone: "p", at: 5, nil),
        ])
    }

    @Test func activeTasksForThePhoneOrForAnyPhoneWin() throws {
        try Self.run([
            .expect(phone: "p1", at: 0, nil),
            .start("a", phone: "p1", at: 0),
            .start("b", phone: "", at: 1),
            .start("c", phone: "p2", at: 2),
            .expect(phone: "p1", at: 2, "b"),
            .expect(phone: "p2", at: 2, "c"),
            .expect(phone: "p3", at: 2, "b"),
            .expect(phone: "", at: 2, "b"),
            .update("a", at: 3),
            .expect(phone: "p1", at: 3, "a"),
            .expect(phone: "p3", at: 3, "b"),
            .update("b", at: 4),
            .expect(phone: "p1", at: 4, "b"),
            .expect(phone: "p2", at: 4, "b"),
            .update("c", at: 5),
            .expect(phone: "p2", at: 5, "c"),
            .expect(phone: "p1", at: 5, "b"),
        ])
    }

    @Test func anActiveTaskBeatsAMoreRecentlyEndedOne() throws {
        try Self.run([
            .start("a", phone: "p1", at: 0),
            .start("b", phone: "p1", at: 1),
            .end("b", .completed, at: 2),
            .expect(phone: "p1", at: 2, "a"),
            .end("a", .failed, at: 3),
            .expect(phone: "p1", at: 3, "a"),
            .expect(phone: "p2", at: 3, nil),
        ])
    }

    @Test func endedTasksShowUntilTheirRetentionEndsExactly() throws {
        try Self.run([
            .start("a", phone: "p1", at: 0),
            .start("b", phone: "", at: 1),
            .start("c", phone: "p2", at: 2),
            .end("a", .completed, at: 4),
            .end("b", .canceled, at: 5),
            .end("c", .failed, at: 6),
            .expect(phone: "p1", at: 6, "b"),
            .expect(phone: "p2", at: 6, "c"),
            .expect(phone: "p3", at: 6, "b"),
            .expect(phone: "p1", at: 603.999, "b"),
            .expect(phone: "p1", at: 604.999, "b"),
            .expect(phone: "p1", at: 605, nil),
            .expect(phone: "p3", at: 604.999, "b"),
            .expect(phone: "p3", at: 605, nil),
            .expect(phone: "p2", at: 605, "c"),
            .expect(phone: "p2", at: 605.999, "c"),
            .expect(phone: "p2", at: 606, nil),
        ])
    }

    @Test func anOlderEndedTaskShowsWhenTheNewerOneIsNotForThisPhone() throws {
        try Self.run([
            .start("mine", phone: "p1", at: 0),
            .start("theirs", phone: "p2", at: 1),
            .end("mine", .completed, at: 2),
            .end("theirs", .completed, at: 3),
            .expect(phone: "p1", at: 3, "mine"),
            .expect(phone: "p1", at: 601.999, "mine"),
            .expect(phone: "p1", at: 602, nil),
            .start("next", phone: "p1", at: 700),
            .expect(phone: "p1", at: 700, "next"),
        ])
    }

    @Test func recencyFollowsTheOrderOfChangesNotTheWallClock() throws {
        // The clock stepped back between the two starts: "b" is still the later change.
        try Self.run([
            .start("a", phone: "", at: 100),
            .start("b", phone: "", at: 50),
            .expect(phone: "p1", at: 100, "b"),
            .update("a", at: 40),
            .expect(phone: "p1", at: 100, "a"),
        ])
    }

    @Test func retentionOfZeroHidesEndedTasksAtOnce() throws {
        var store = TaskStore(generation: "g1")
        try store.startTask("a", at: at(0))
        _ = try store.end(id: "a", TaskEnd(status: .completed), now: at(1))
        #expect(store.current(forPhone: "p", now: at(1), retention: .zero) == nil)
        #expect(store.current(forPhone: "p", now: at(1), retention: .milliseconds(1))?.requestID == "a")
    }
}
