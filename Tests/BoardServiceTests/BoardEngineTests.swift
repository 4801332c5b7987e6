import BoardAPI
import FoundationEssentials
import LiveActivity
import NetworkAddress
import Platform
import TestSupport
import Testing
import WakeProtocol

@testable import BoardService

@Suite struct BoardEngineTests {
    @Test func startAnnouncesTheBoardWithOneSystemWake() throws {
        let board = try EngineFixture()
        // What the daemon gives the peripheral to answer a ReadValue with before the first Wake (docs/protocol.md
        // §2.1); from then on the peripheral answers with the last value it sent.
        #expect(
            board.loaded.wake.readValueBeforeFirstWake
                == WakeEnvelope(reason: .system, epoch: board.loaded.wake.epoch, sequence: 0))
        board.engine.start()
        #expect(board.sink.envelopes == [WakeEnvelope(reason: .system, epoch: board.loaded.wake.epoch, sequence: 1)])
        #expect(board.loaded.wake.epoch != 0)
    }

    /// Timeline: a change inside the start Wake's window goes out at the window's end, as live_activity.
    @Test func changesAreCoalescedIntoOneTrailingWake() throws {
        let board = try EngineFixture()
        board.engine.start()
        board.runtime.advance(by: .milliseconds(100))
        let id = board.start()
        for step in 0..<50 {
            board.runtime.advance(by: .milliseconds(10))
            board.agent("PATCH", "/v1/tasks/\(id)", #"{"current_step":"step \#(step)","progress":0.01}"#)
        }
        #expect(board.sink.wakes.count == 1, "all changes fall inside the first window")
        board.runtime.advance(by: .milliseconds(200))
        let wakes = board.sink.wakes
        #expect(wakes.count == 2)
        #expect(wakes[1].at == .milliseconds(750))
        #expect(wakes[1].envelope.reason == .liveActivity)
        #expect(wakes[1].envelope.sequence == 2)
        // The phone fetching after the Wake sees the final state.
        let current = board.phone("GET", "/api/live-activity/current").text
        #expect(current.contains(#""current_step":"step 49""#))
        board.runtime.advance(by: .seconds(5))
        #expect(board.sink.wakes.count == 2, "no Wake without a change")
        #expect(board.engine.wakeFacts.coalescedChanges == 51, "the start and 50 updates merged into one Wake")
    }

    /// Timeline: the trailing Wake's timer is late (the executor busy past 750 ms); a change at 900 ms goes out at
    /// once, and the stale timer then finds nothing waiting. Only the change inside the window was coalesced: the
    /// timer is no change of its own.
    @Test func aLateTimerAfterALeadingEdgeCountsNoCoalescedChange() throws {
        let board = try EngineFixture()
        board.engine.start()
        board.runtime.advance(by: .milliseconds(100))
        let id = board.start()
        #expect(board.runtime.pendingTimers.contains(.milliseconds(750)))
        board.runtime.elapse(.milliseconds(800))
        board.agent("PATCH", "/v1/tasks/\(id)", #"{"current_step":"late"}"#)
        board.runtime.advance(by: .seconds(2))
        #expect(board.sink.wakes.map(\.at) == [.zero, .milliseconds(900)])
        #expect(board.sink.envelopes.map(\.reason) == [.system, .liveActivity])
        #expect(board.engine.wakeFacts.coalescedChanges == 1)
    }

    @Test func aChangeAfterAQuietWindowGoesOutAtOnce() throws {
        let board = try EngineFixture()
        board.engine.start()
        board.runtime.advance(by: .seconds(2))
        _ = board.start()
        #expect(board.sink.wakes.map(\.at) == [.zero, .seconds(2)])
    }

    /// Timeline: the start Wake first writes its block's durable mark, and that fsync takes 300 ms; its window runs
    /// from when it went out, so the next Wake, which writes no mark, is still one window after it (it was 450 ms
    /// when the window ran from the decision).
    @Test func aSlowDurableMarkStillSpacesWakesOneWindowApart() throws {
        let board = try EngineFixture(blockSize: 2)
        board.fileSystem.whenSynchronizingFile { [runtime = board.runtime] path in
            if path.contains("/wake.json") { runtime.elapse(.milliseconds(300)) }
        }
        board.engine.start()
        #expect(board.runtime.monotonicNow() == .milliseconds(300), "the mark's fsync took 300 ms")
        _ = board.start()
        board.runtime.advance(by: .seconds(2))
        let wakes = board.sink.wakes
        #expect(wakes.map(\.envelope.sequence) == [1, 2])
        #expect(wakes.map(\.at) == [.milliseconds(300), .milliseconds(1050)])
    }

    @Test func startsAndEndsAreDurableBeforeTheyAreAcknowledged() throws {
        let board = try EngineFixture()
        board.engine.start()
        let id = board.start("Durable")
        #expect(try board.storedTasks()?.task(id: id)?.taskTitle == "Durable")
        board.agent("POST", "/v1/tasks/\(id)/end", #"{"status":"completed"}"#)
        let after = try board.restartedAfterCrash()
        #expect(after.loaded.store.task(id: id)?.status == .completed)
    }

    @Test func progressUpdatesAreWrittenAtMostOneSecondLate() throws {
        let board = try EngineFixture()
        let id = board.start()
        board.agent("PATCH", "/v1/tasks/\(id)", #"{"progress":0.5}"#)
        #expect(try board.storedTasks()?.task(id: id)?.progress == 0, "lazy: not yet written")
        board.runtime.advance(by: .milliseconds(999))
        #expect(try board.storedTasks()?.task(id: id)?.progress == 0)
        board.runtime.advance(by: .milliseconds(2))
        #expect(try board.storedTasks()?.task(id: id)?.progress == 0.5)
    }

    @Test func flushWritesPendingUpdatesAtShutdown() throws {
        let board = try EngineFixture()
        let id = board.start()
        board.agent("PATCH", "/v1/tasks/\(id)", #"{"current_step":"last words"}"#)
        #expect(board.engine.flush() == nil)
        #expect(try board.storedTasks()?.task(id: id)?.currentStep == "last words")
    }

    @Test func aWriteThatCannotBeSavedIsRefusedAndUndone() throws {
        let board = try EngineFixture()
        board.engine.start()
        board.fileSystem.inject(.failOnce, atOperation: board.fileSystem.operationCount)
        let response = board.agent("POST", "/v1/tasks", #"{"task_title":"Lost?"}"#)
        #expect(response.status == 503)
        #expect(response.text.contains(#""code":"storage_failed""#))
        #expect(board.agent("GET", "/v1/tasks").text.contains("Lost?") == false)
        #expect(board.phone("GET", "/api/live-activity/current").text == #"{"status":"not_found"}"#)
        board.runtime.advance(by: .seconds(1))
        #expect(board.sink.wakes.count == 1, "a refused write sends no Wake")
        // The board keeps working.
        #expect(board.agent("POST", "/v1/tasks", #"{"task_title":"Next"}"#).status == 201)
    }

    @Test func sequencesKeepRisingAcrossCrashes() throws {
        var board = try EngineFixture(blockSize: 4)
        var highest: UInt64 = 0
        var epoch: UInt16?
        for round in 0..<5 {
            board.engine.start()
            let id = board.start("round \(round)")
            for step in 0..<7 {
                board.runtime.advance(by: .milliseconds(800))
                board.agent("PATCH", "/v1/tasks/\(id)", #"{"current_step":"\#(step)"}"#)
            }
            board.runtime.advance(by: .seconds(1))
            let sequences = board.sink.envelopes.map(\.sequence)
            #expect(sequences.first.map { $0 > highest } ?? false, "round \(round) starts above \(highest)")
            #expect(sequences == sequences.sorted() && Set(sequences).count == sequences.count)
            #expect(Set(board.sink.envelopes.map(\.epoch)).count == 1)
            if let epoch { #expect(board.sink.envelopes.first?.epoch == epoch, "epoch survives restarts") }
            epoch = board.sink.envelopes.first?.epoch
            highest = sequences.max() ?? highest
            board = try board.restartedAfterCrash(seed: UInt64(round) + 10)
        }
    }

    @Test func endedTasksLeaveWhenTheirRetentionEndsAndPhonesAreWoken() throws {
        let board = try EngineFixture(retention: .seconds(60))
        board.engine.start()
        let id = board.start()
        board.runtime.advance(by: .seconds(1))
        board.agent("POST", "/v1/tasks/\(id)/end", #"{"status":"completed"}"#)
        board.runtime.advance(by: .seconds(1))
        let before = board.sink.wakes.count
        #expect(board.phone("GET", "/api/live-activity/current").text.contains(#""status":"completed""#))
        board.runtime.advance(by: .seconds(58))
        #expect(
            board.phone("GET", "/api/live-activity/current").text.contains(#""status":"completed""#),
            "still inside its retention window (ended at t=1 s, now t=60 s)")
        #expect(board.sink.wakes.count == before)
        board.runtime.advance(by: .seconds(2))
        #expect(board.phone("GET", "/api/live-activity/current").text == #"{"status":"not_found"}"#)
        #expect(board.sink.wakes.count == before + 1, "the expiry is a change the phone hears about")
    }

    /// The wall clock steps an hour forward, then a day back: the ended card still stays its retention and the
    /// silent task goes stale after its own time, both by elapsed time; the stamps follow the wall clock.
    @Test func retentionAndStalenessFollowElapsedTimeWhenTheWallClockJumps() throws {
        let board = try EngineFixture(retention: .seconds(60))
        board.engine.start()
        let id = board.start()
        board.agent(
            "POST", "/v1/tasks", #"{"task_title":"T","request_id":"quiet","stale_after_seconds":30}"#)
        board.runtime.advance(by: .seconds(1))
        board.agent("POST", "/v1/tasks/\(id)/end", #"{"status":"completed","dismiss_after_seconds":40}"#)
        board.runtime.stepWallClock(by: 3600)
        board.runtime.advance(by: .seconds(10))
        let afterJump = board.phone("GET", "/api/live-activity/current").text
        #expect(afterJump.contains(#""request_id":"quiet""#) && afterJump.contains(#""stale_since":null"#))
        #expect(board.phone("GET", "/api/live-activity/status", query: [("request_id", id)]).status == 200)
        board.runtime.stepWallClock(by: -86_400)
        board.runtime.advance(by: .seconds(18))
        #expect(board.phone("GET", "/api/live-activity/current").text.contains(#""stale_since":null"#))
        board.runtime.advance(by: .seconds(1))
        #expect(!board.phone("GET", "/api/live-activity/current").text.contains(#""stale_since":null"#))
        #expect(
            board.phone("GET", "/api/live-activity/status", query: [("request_id", id)]).status == 200, "ended at 1 s")
        board.runtime.advance(by: .seconds(11))
        #expect(
            board.phone("GET", "/api/live-activity/status", query: [("request_id", id)]).text
                == #"{"status":"not_found"}"#, "gone at 41 s")
    }

    /// The phone's time stamps while the board's clock reads 1970; `/status` says so.
    @Test func anUnsetBoardClockStampsWithThePhonesTime() throws {
        let board = try EngineFixture(runtime: ManualRuntime(wallOrigin: Date(timeIntervalSince1970: 100)))
        board.engine.start()
        let reported = board.phone(
            "POST", "/api/phone/app-state", headers: ["content-type": "application/json"],
            body: #"{"state":"foreground","phone_time":"2026-06-12T07:00:00Z"}"#)
        #expect(reported.status == 200)
        let status = board.phone("GET", "/status").text
        #expect(status.contains(#""clock":{"offset_seconds":\#(1_781_247_600 - 100),"source":"phone"}"#), "\(status)")
        board.runtime.advance(by: .seconds(5))
        let started = board.agent("POST", "/v1/tasks", #"{"task_title":"T"}"#)
        #expect(started.text.contains(#""started_at":"2026-06-12T07:00:05Z""#))
        #expect(board.logs.lines.contains { $0.contains("timestamps follow the phone's clock") })
    }

    /// A killed agent's task: stale on the card after `stale_after_seconds`, ended `failed` by the board after
    /// `abandon_after_seconds`, durably, with a Wake each time; a heartbeat in between keeps it fresh.
    @Test func aSilentAgentsTaskGoesStaleThenEndsFailed() throws {
        let board = try EngineFixture()
        board.engine.start()
        let started = board.agent(
            "POST", "/v1/tasks",
            #"{"task_title":"T","request_id":"quiet","stale_after_seconds":60,"abandon_after_seconds":180}"#)
        #expect(started.status == 201)
        board.runtime.advance(by: .seconds(50))
        #expect(board.agent("POST", "/v1/tasks/quiet/heartbeat").status == 200)
        board.runtime.advance(by: .seconds(2))
        let wakes = board.sink.wakes.count
        board.runtime.advance(by: .seconds(57))
        #expect(!board.phone("GET", "/api/live-activity/current").text.contains(#""stale_since":"2"#))
        #expect(board.sink.wakes.count == wakes, "a heartbeat on a fresh task is no change")

        board.runtime.advance(by: .seconds(2))
        let stale = board.phone("GET", "/api/live-activity/current").text
        #expect(stale.contains(#""stale_since":"2"#) && stale.contains(#""status":"running""#), "\(stale)")
        #expect(board.sink.wakes.count == wakes + 1)
        #expect(
            board.logs.lines.contains { $0.contains("task quiet: no news from its agent for 60 s, shown as stale") })

        board.runtime.advance(by: .seconds(121))
        let ended = board.phone("GET", "/api/live-activity/current").text
        #expect(ended.contains(#""status":"failed""#) && ended.contains(#""last_error":"the agent stopped reporting""#))
        #expect(board.sink.wakes.count == wakes + 2)
        #expect(try board.storedTasks()?.task(id: "quiet")?.status == .failed, "the end is on disk")
        let events = board.phone("GET", "/api/live-activity/events", query: [("since", "0")]).text
        #expect(events.contains(#""transition":"failed""#), "the phone alerts it like any failure")
        #expect(board.agent("POST", "/v1/tasks/quiet/heartbeat").status == 409)
    }

    @Test func refusedRequestsAreLoggedWithoutFloodingTheLog() throws {
        let board = try EngineFixture()
        for _ in 0..<100 {
            #expect(board.phone("GET", "/status", peer: IPAddress(v4: 10, 99, 0, 2)).status == 403)
        }
        let lines = board.logs.lines(at: .notice)
        #expect(lines.count == 6)  // its first refusal, then 5 repeats
        #expect(
            lines.first
                == "engine: 403 GET /status from 10.99.0.2: peer 10.99.0.2 is outside loopback and the allowed subnets")
        board.runtime.advance(by: .seconds(11))
        _ = board.phone("GET", "/status", peer: IPAddress(v4: 10, 99, 0, 2))
        #expect(board.logs.lines(at: .notice).last?.hasSuffix("(94 more refused since the last report)") == true)
    }

    /// The path is decoded (`%0A` is a line feed by then): it cannot end the log line and forge a journal
    /// entry of its own.
    @Test func aRefusedPathIsLoggedOnOneLine() throws {
        let board = try EngineFixture()
        let path = "/status\n<3>aiden-board: forged\u{1B}[2J"
        #expect(board.phone("GET", path, peer: IPAddress(v4: 10, 99, 0, 2)).status == 403)
        #expect(
            board.logs.lines(at: .notice) == [
                #"engine: 403 GET /status\n<3>aiden-board: forged\u{1b}[2J from 10.99.0.2: "#
                    + "peer 10.99.0.2 is outside loopback and the allowed subnets"
            ])
    }

    @Test func wakeFailuresAreCountedAndTheNextChangeTriesAgain() throws {
        let board = try EngineFixture()
        board.sink.failing.store(true, ordering: .relaxed)
        board.engine.start()
        #expect(board.engine.wakeFacts.sendFailures == 1)
        board.sink.failing.store(false, ordering: .relaxed)
        board.runtime.advance(by: .seconds(1))
        _ = board.start()
        #expect(board.sink.envelopes.map(\.sequence) == [2])
        let status = board.phone("GET", "/status").text
        #expect(status.contains(#""send_failures":1"#))
        #expect(status.contains(#""last_seq":2"#))
    }
}
