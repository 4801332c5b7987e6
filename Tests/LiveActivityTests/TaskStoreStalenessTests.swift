import FoundationEssentials
import Testing
import WakeProtocol
import WireFormat

@testable import LiveActivity

/// An agent that goes silent: stale after `stale_after_seconds`, ended `failed` after `abandon_after_seconds`,
/// fresh again on any update or heartbeat. Timelines with the time passed in.
@Suite struct TaskStoreStalenessTests {
    /// A start with the given limits at `at(time)`.
    static func started(
        _ id: String, at time: Double, stale: Int? = 60, abandon: Int? = 300, into store: inout TaskStore
    ) throws {
        var generator = SplitMix64(seed: 1)
        var draft = TaskDraft(taskTitle: "Task \(id)", requestID: id)
        draft.staleAfterSeconds = stale
        draft.abandonAfterSeconds = abandon
        _ = try store.start(draft, idempotencyKey: nil, now: at(time), using: &generator)
    }

    @Test func silenceMarksStaleThenAbandonsWithAFailedTransition() throws {
        var store = TaskStore(generation: "g1")
        try Self.started("a", at: 0, into: &store)
        #expect(store.nextStaleDeadline() == at(60))

        // (time, stale ids marked, abandoned ids, next deadline)
        let timeline: [(Double, [String], [String], Date?)] = [
            (59.999, [], [], at(60)),
            (60, ["a"], [], at(300)),
            (120, [], [], at(300)),
            (300, [], ["a"], nil),
            (900, [], [], nil),
        ]
        for (time, stale, abandoned, next) in timeline {
            let sweep = store.sweepStale(now: at(time))
            #expect(sweep.stale.map(\.snapshot.requestID) == stale, "at \(time)")
            #expect(sweep.abandoned.map(\.snapshot.requestID) == abandoned, "at \(time)")
            #expect(store.nextStaleDeadline() == next, "at \(time)")
        }
        let ended = try #require(store.task(id: "a"))
        #expect(ended.status == .failed && ended.lastError == TaskStore.abandonedError)
        #expect(ended.staleSince == at(60) && ended.endedAt == at(300))
        #expect(store.transitions.events.map(\.transition) == [.started, .failed])
        #expect(store.lastNews(of: "a") == nil)
    }

    @Test func newsKeepsATaskFreshAndClearsTheStaleMark() throws {
        var store = TaskStore(generation: "g1")
        try Self.started("a", at: 0, into: &store)
        let revision = store.revision

        // A heartbeat while fresh moves the deadline and nothing else: no revision, no Wake.
        let beat = try store.heartbeat(id: "a", now: at(50))
        #expect(beat.durability == .unchanged && store.revision == revision)
        #expect(store.nextStaleDeadline() == at(110))
        #expect(store.sweepStale(now: at(100)).isEmpty)

        // Stale at 110; a heartbeat then is a change: the mark goes, the card must see it.
        #expect(store.sweepStale(now: at(110)).stale.count == 1)
        #expect(store.task(id: "a")?.staleSince == at(110))
        let revived = try store.heartbeat(id: "a", now: at(200))
        #expect(revived.durability == .lazy && revived.snapshot.staleSince == nil)
        #expect(store.nextStaleDeadline() == at(260))

        // Any update is news too, even one that changes nothing else.
        _ = try store.update(id: "a", patch: TaskPatch(currentStep: "Next"), now: at(250))
        #expect(store.nextStaleDeadline() == at(310))
        _ = try store.update(id: "a", patch: TaskPatch(currentStep: "Next"), now: at(300))
        #expect(store.nextStaleDeadline() == at(360))
        #expect(store.sweepStale(now: at(359)).isEmpty)
    }

    @Test func heartbeatsAreRefusedLikeUpdates() throws {
        var store = TaskStore(generation: "g1")
        try Self.started("a", at: 0, into: &store)
        _ = try store.end(id: "a", TaskEnd(status: .completed), now: at(1))
        #expect(storeError { _ = try store.heartbeat(id: "a", now: at(2)) }.map { "\($0)" }?.contains("final") == true)
        #expect(storeError { _ = try store.heartbeat(id: "missing", now: at(2)) } == .notFound(id: "missing"))
    }

    @Test func aStaleTaskDoesNotPushALiveOneOffTheCard() throws {
        var store = TaskStore(generation: "g1")
        try Self.started("old", at: 0, into: &store)
        try Self.started("live", at: 30, stale: 600, abandon: 1200, into: &store)
        // Marking "old" stale gives it the newest revision; the card still shows the live task.
        #expect(store.sweepStale(now: at(60)).stale.map(\.snapshot.requestID) == ["old"])
        #expect(store.current(forPhone: "", now: at(61), retention: tenMinutes)?.requestID == "live")
        _ = try store.end(id: "live", TaskEnd(status: .completed), now: at(62))
        #expect(store.current(forPhone: "", now: at(63), retention: tenMinutes)?.requestID == "old")
    }

    @Test func limitsAreValidatedAndDefaulted() throws {
        let defaults = try TaskDraft.decode(from: Array(#"{"task_title":"T"}"#.utf8))
        var store = TaskStore(generation: "g1")
        var generator = SplitMix64(seed: 1)
        let started = try store.start(defaults, idempotencyKey: nil, now: at(0), using: &generator).snapshot
        #expect(started.staleAfterSeconds == 300 && started.abandonAfterSeconds == 3600 && started.staleSince == nil)
        let long = try TaskDraft.decode(from: Array(#"{"task_title":"T","stale_after_seconds":7200}"#.utf8))
        #expect(long.snapshot(requestID: "x", now: at(0), revision: 1).abandonAfterSeconds == 7200)

        let rows: [(String, String?, String)] = [
            (#""stale_after_seconds":5"#, "stale_after_seconds", "from 10 to 86400, got 5"),
            (#""stale_after_seconds":1.5"#, "stale_after_seconds", "got 1.5"),
            (#""stale_after_seconds":"60""#, "stale_after_seconds", #"got "60""#),
            (#""abandon_after_seconds":9999999"#, "abandon_after_seconds", "from 10 to 604800"),
            (
                #""stale_after_seconds":600,"abandon_after_seconds":60"#, "abandon_after_seconds",
                "must not be less than stale_after_seconds (600), got 60"
            ),
        ]
        for (members, field, text) in rows {
            let error = validationError {
                _ = try TaskDraft.decode(from: Array(#"{"task_title":"T",\#(members)}"#.utf8))
            }
            #expect(error?.field == field, "\(members)")
            #expect(error.map { "\($0)" }?.contains(text) == true, "\(members): \(String(describing: error))")
        }
        // An update that would abandon before staleness is refused and changes nothing.
        let revision = store.revision
        let refused = storeError {
            _ = try store.update(id: started.requestID, patch: TaskPatch(abandonAfterSeconds: 100), now: at(1))
        }
        #expect(refused.map { "\($0)" }?.contains("must not be less than stale_after_seconds (300)") == true)
        #expect(store.revision == revision && store.lastNews(of: started.requestID) == at(0))
    }

    @Test func lastNewsSurvivesPersistenceAndOldFilesDefaultToUpdatedAt() throws {
        var store = TaskStore(generation: "g1")
        try Self.started("a", at: 0, into: &store)
        _ = try store.heartbeat(id: "a", now: at(40))
        let data = try JSONEncoder().encode(store)
        let loaded = try JSONDecoder().decode(TaskStore.self, from: data)
        #expect(loaded.lastNews(of: "a") == at(40) && loaded.nextStaleDeadline() == at(100))

        // A state file from before staleness: no `news`, no limits in the tasks.
        guard case .object(var object) = try JSONDecoder().decode(JSONValue.self, from: data),
            case .array(var tasks) = object["tasks"], case .object(var task) = tasks.first
        else {
            Issue.record("the store did not encode as an object with tasks")
            return
        }
        object["news"] = nil
        for key in ["stale_after_seconds", "abandon_after_seconds", "stale_since"] { task[key] = nil }
        tasks[0] = .object(task)
        object["tasks"] = .array(tasks)
        let old = try JSONDecoder().decode(TaskStore.self, from: try JSONEncoder().encode(JSONValue.object(object)))
        let loadedTask = try #require(old.task(id: "a"))
        #expect(loadedTask.staleAfterSeconds == 300 && loadedTask.abandonAfterSeconds == 3600)
        #expect(old.lastNews(of: "a") == loadedTask.updatedAt && old.nextStaleDeadline() == at(300))
    }
}
