import FoundationEssentials
import Testing
import WakeProtocol
import WireFormat

@testable import LiveActivity

/// Staleness and retention follow elapsed time on the monotonic clock, whatever the wall clock does: timelines
/// where the wall clock jumps forward an hour and back a day, as a board without an RTC sees when NTP or the
/// phone's time arrives. Each row is (monotonic seconds, wall clock as seconds from `t0`).
@Suite struct TaskStoreClockTests {
    enum Step {
        case start(String, mono: Double, wall: Double)
        case end(String, mono: Double, wall: Double)
        /// Sweep and prune at that moment; the ids ended as abandoned and pruned, and what the card shows.
        case check(mono: Double, wall: Double, stale: [String], abandoned: [String], pruned: [String], shown: String?)
        /// The next deadlines, on the monotonic clock.
        case deadlines(mono: Double, wall: Double, stale: Double?, expiry: Double?)
    }

    static func run(_ steps: [Step], sourceLocation: SourceLocation = #_sourceLocation) throws {
        var store = TaskStore(generation: "g1")
        for step in steps {
            switch step {
            case .start(let id, let mono, let wall):
                var generator = SplitMix64(seed: 1)
                var draft = TaskDraft(taskTitle: "Task", requestID: id)
                draft.staleAfterSeconds = 60
                draft.abandonAfterSeconds = 300
                _ = try store.start(draft, idempotencyKey: nil, now: at(wall), using: &generator)
                store.anchorClocks(now: at(wall), instant: instant(mono))
            case .end(let id, let mono, let wall):
                _ = try store.end(id: id, TaskEnd(status: .completed), now: at(wall))
                store.anchorClocks(now: at(wall), instant: instant(mono))
            case .check(let mono, let wall, let stale, let abandoned, let pruned, let shown):
                let sweep = store.sweepStale(now: at(wall), instant: instant(mono))
                store.anchorClocks(now: at(wall), instant: instant(mono))
                let removed = store.prune(now: at(wall), instant: instant(mono), retention: tenMinutes)
                let moment = "at monotonic \(mono) s, wall \(wall) s"
                #expect(sweep.stale.map(\.snapshot.requestID) == stale, "\(moment)", sourceLocation: sourceLocation)
                #expect(
                    sweep.abandoned.map(\.snapshot.requestID) == abandoned, "\(moment)", sourceLocation: sourceLocation)
                #expect(removed == pruned, "\(moment)", sourceLocation: sourceLocation)
                let card = store.current(forPhone: "", now: at(wall), instant: instant(mono), retention: tenMinutes)
                #expect(card?.requestID == shown, "\(moment)", sourceLocation: sourceLocation)
            case .deadlines(let mono, let wall, let stale, let expiry):
                let now = at(wall)
                #expect(
                    store.nextStaleDeadline(now: now, instant: instant(mono)) == stale.map(instant),
                    "stale deadline at monotonic \(mono) s", sourceLocation: sourceLocation)
                #expect(
                    store.nextExpiry(now: now, instant: instant(mono), retention: tenMinutes) == expiry.map(instant),
                    "expiry at monotonic \(mono) s", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func aWallClockAnHourAheadMovesNoDeadline() throws {
        try Self.run([
            .start("a", mono: 0, wall: 0),
            .deadlines(mono: 0, wall: 0, stale: 60, expiry: nil),
            // NTP steps the clock an hour forward: by the wall clock "a" is an hour silent.
            .check(mono: 10, wall: 3610, stale: [], abandoned: [], pruned: [], shown: "a"),
            .deadlines(mono: 10, wall: 3610, stale: 60, expiry: nil),
            .check(mono: 59.999, wall: 3659.999, stale: [], abandoned: [], pruned: [], shown: "a"),
            .check(mono: 60, wall: 3660, stale: ["a"], abandoned: [], pruned: [], shown: "a"),
            .deadlines(mono: 60, wall: 3660, stale: 300, expiry: nil),
            .check(mono: 300, wall: 3900, stale: [], abandoned: ["a"], pruned: [], shown: "a"),
            // Ended at monotonic 300: kept for the 10-minute retention from there.
            .deadlines(mono: 300, wall: 3900, stale: nil, expiry: 900),
            .check(mono: 899.999, wall: 4499.999, stale: [], abandoned: [], pruned: [], shown: "a"),
            .check(mono: 900, wall: 4500, stale: [], abandoned: [], pruned: ["a"], shown: nil),
        ])
    }

    @Test func aWallClockADayBehindKeepsNothingLonger() throws {
        try Self.run([
            .start("a", mono: 0, wall: 0),
            .start("b", mono: 5, wall: 5),
            .end("b", mono: 10, wall: 10),
            // The clock is set back a day: by the wall clock nothing would expire for a day.
            .check(mono: 20, wall: -86_380, stale: [], abandoned: [], pruned: [], shown: "a"),
            .deadlines(mono: 20, wall: -86_380, stale: 60, expiry: 610),
            .check(mono: 60, wall: -86_340, stale: ["a"], abandoned: [], pruned: [], shown: "a"),
            .check(mono: 300, wall: -86_100, stale: [], abandoned: ["a"], pruned: [], shown: "a"),
            .check(mono: 610, wall: -85_790, stale: [], abandoned: [], pruned: ["b"], shown: "a"),
            .check(mono: 900, wall: -85_500, stale: [], abandoned: [], pruned: ["a"], shown: nil),
        ])
    }

    @Test func newsAfterAJumpIsMeasuredFromWhenItCame() throws {
        var store = TaskStore(generation: "g1")
        var generator = SplitMix64(seed: 1)
        var draft = TaskDraft(taskTitle: "Task", requestID: "a")
        draft.staleAfterSeconds = 60
        _ = try store.start(draft, idempotencyKey: nil, now: at(0), using: &generator)
        store.anchorClocks(now: at(0), instant: instant(0))
        // A day back, then a heartbeat: the next deadline is 60 s after the heartbeat, not a day and 60 s.
        _ = try store.heartbeat(id: "a", now: at(-86_350))
        store.anchorClocks(now: at(-86_350), instant: instant(50))
        #expect(store.nextStaleDeadline(now: at(-86_350), instant: instant(50)) == instant(110))
        #expect(store.sweepStale(now: at(-86_291), instant: instant(109)).isEmpty)
        #expect(store.sweepStale(now: at(-86_290), instant: instant(110)).stale.count == 1)
    }

    /// A restart continues each task's age from what `tasks.json` recorded, whatever the wall clock says then;
    /// a file from before ages were recorded derives them from the wall clock, once.
    @Test func aRestartContinuesFromTheRecordedAge() throws {
        var store = TaskStore(generation: "g1")
        var generator = SplitMix64(seed: 1)
        var draft = TaskDraft(taskTitle: "Task", requestID: "a")
        draft.staleAfterSeconds = 60
        _ = try store.start(draft, idempotencyKey: nil, now: at(0), using: &generator)
        store.anchorClocks(now: at(0), instant: instant(1000))
        store.anchorClocks(now: at(20), instant: instant(1020))  // written 20 s after its news
        let data = try JSONEncoder().encode(store)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""elapsed":{"a":20000}"#), "\(text)")
        let legacyText = text.replacing(#","elapsed":{"a":20000}"#, with: "")
            .replacing(#""elapsed":{"a":20000},"#, with: "")
        #expect(!legacyText.contains("elapsed"))
        let legacyData = Data(legacyText.utf8)

        // (wall at restart, monotonic at restart, the stale deadline from the recorded age, from the wall clock)
        let rows: [(Double, Double, Double, Double)] = [
            (20, 3, 43, 43),  // 20 s later by the wall clock: 40 s to go either way
            (-500, 3, 43, 63),  // the clock went back: an old file counts from now, never earlier than the stamp
            (100, 3, 43, -37),  // the clock went ahead: an old file is overdue at once
            (400 * 365 * 86_400, 3, 43, -12_614_399_937),  // the clock at 2426: the recorded age is what counts
        ]
        for (wall, mono, recorded, derived) in rows {
            var loaded = try JSONDecoder().decode(TaskStore.self, from: data)
            loaded.anchorClocks(now: at(wall), instant: instant(mono))
            #expect(loaded.nextStaleDeadline(now: at(wall), instant: instant(mono)) == instant(recorded), "\(wall)")
            var old = try JSONDecoder().decode(TaskStore.self, from: legacyData)
            old.anchorClocks(now: at(wall), instant: instant(mono))
            #expect(old.nextStaleDeadline(now: at(wall), instant: instant(mono)) == instant(derived), "old \(wall)")
        }
    }

    /// The walk the app-state finding describes, on the store alone: the stamp clock moves 10 years ahead with
    /// each of 1,000 reports (it stops at 9999-12-31, where every stamp is the same), then back to 2024, and the
    /// board restarts in between and after. An agent that heartbeats every 30 s (stale after 60 s, abandoned after
    /// 120 s) keeps its task running throughout, and a task started at the clamp does not die on arrival.
    @Test func aWalkOfTheStampClockToTheClampAndBackEndsNoHeartbeatingTask() throws {
        var store = TaskStore(generation: "g1")
        var generator = SplitMix64(seed: 1)
        var draft = TaskDraft(taskTitle: "Task", requestID: "a")
        draft.staleAfterSeconds = 60
        draft.abandonAfterSeconds = 120
        let tenYears = 10 * 365.25 * 86_400
        var mono = 0.0
        var stamp = 0.0
        _ = try store.start(draft, idempotencyKey: nil, now: at(stamp), using: &generator)
        store.anchorClocks(now: at(stamp), instant: instant(mono))

        /// One 30-second beat: heartbeats from every running task, then the board's sweep.
        func beat(_ ids: [String]) throws {
            mono += 30
            for id in ids {
                _ = try store.heartbeat(id: id, now: at(stamp))
            }
            store.anchorClocks(now: at(stamp), instant: instant(mono))
            let sweep = store.sweepStale(now: at(stamp), instant: instant(mono))
            #expect(sweep.isEmpty, "at monotonic \(mono) s, stamps at \(Timestamp.format(at(stamp)))")
            store.anchorClocks(now: at(stamp), instant: instant(mono))
        }
        /// A restart: written, read back, anchored with the monotonic clock started again.
        func restart(wall: Double) throws {
            let data = try JSONEncoder().encode(store)
            store = try JSONDecoder().decode(TaskStore.self, from: data)
            mono = 5
            store.anchorClocks(now: at(wall), instant: instant(mono))
        }

        for _ in 1...1000 {
            stamp += tenYears
            try beat(["a"])
        }
        #expect(Timestamp.format(at(stamp)).hasPrefix("9999-12-31"))
        draft.requestID = "b"
        _ = try store.start(draft, idempotencyKey: nil, now: at(stamp), using: &generator)
        store.anchorClocks(now: at(stamp), instant: instant(mono))
        for _ in 1...10 { try beat(["a", "b"]) }
        try restart(wall: stamp)
        for _ in 1...10 { try beat(["a", "b"]) }

        stamp = Timestamp.parse("2024-01-01T00:00:00Z")!.timeIntervalSince(t0)
        for _ in 1...10 { try beat(["a", "b"]) }
        try restart(wall: stamp + 2 * 365 * 86_400)  // the board's own clock says 2026 at the restart
        for _ in 1...10 { try beat(["a", "b"]) }
        #expect(store.task(id: "a")?.status == .running)
        #expect(store.task(id: "b")?.status == .running)

        // The check has teeth: the same store abandons a task that stops beating, on the monotonic clock.
        mono += 119
        #expect(store.sweepStale(now: at(stamp), instant: instant(mono)).abandoned.isEmpty)
        mono += 1
        #expect(store.sweepStale(now: at(stamp), instant: instant(mono)).abandoned.count == 2)
    }
}
