import FoundationEssentials
import Testing
import WireFormat

@testable import LiveActivity

/// Timeline tables for "which task is current for phone P" (docs/protocol.md §3.4).
@Suite struct TaskStoreSelectionTests {
    enum Step {
        case start(String, phone: String, at: Double)
        case update(String, at: Double)
        case end(String, TaskStatus, at: Double)
        /// At `at` seconds, phone `phone` must be shown task `expected` (nil: `not_found`).
        case expect(phone: String, at: Double, String?)
    }

    /// Runs `steps` in order against a fresh store with a 10-minute retention.
    static func run(_ steps: [Step], sourceLocation: SourceLocation = #_sourceLocation) throws {
        var store = TaskStore(generation: "g1")
        for step in steps {
            switch step {
            case .start(let id, let phone, let time):
                try store.startTask(id, phone: phone, at: at(time))
            case .update(let id, let time):
                _ = try store.update(id: id, patch: TaskPatch(currentStep: "at \(time)"), now: at(time))
            case .end(let id, let status, let time):
                _ = try store.end(id: id, TaskEnd(status: status), now: at(time))
            case .expect(let phone, let time, let expected):
                let shown = store.current(forPhone: phone, now: at(time), retention: tenMinutes)
                #expect(shown?.requestID == expected, "phone \(phone) at t+\(time)", sourceLocation: sourceLocation)
            }
        }
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
