import Logging
import NetworkAddress
import Platform
import Synchronization
import Testing

@testable import BoardService

/// What an operator finds in the journal: one info line for each transition of a task, with `REQUEST_ID` and
/// `TRANSITION` (so `journalctl -u aiden-board REQUEST_ID=…` finds a task's story), each Wake with `WAKE_SEQ`, each
/// refusal with `PEER`.
@Suite struct EngineLogTests {
    @Test func aTasksStartHandoffNeedsAppAndEndAreLoggedWithItsID() throws {
        let board = try EngineFixture()
        board.engine.start()
        let id = board.start("Open Settings", phone: "phone-1")
        let other = board.start("Other")
        board.agent("PATCH", "/v1/tasks/\(id)", #"{"current_step":"Step 2","progress":0.5}"#)
        board.agent("PATCH", "/v1/tasks/\(id)", #"{"phase":"waiting_user","current_action":"request_user_input"}"#)
        board.agent("PATCH", "/v1/tasks/\(id)", #"{"status":"needs_app"}"#)
        board.agent("POST", "/v1/tasks/\(id)/end", #"{"status":"failed","last_error":"no network\nPRIORITY=0"}"#)

        let story = board.logs.entries(.requestID, id)
        #expect(
            story.map(\.line) == [
                "engine: task \(id) started (phone phone-1)",
                "engine: task \(id) is waiting for the person (handoff)",
                "engine: task \(id) needs the app in the foreground (needs_app)",
                #"engine: task \#(id) ended failed: no network\nPRIORITY=0"#,
            ])
        #expect(story.map { $0[.transition] } == ["started", "handoff", "foreground_recovery", "failed"])
        #expect(story.allSatisfy { $0.level == .info })
        #expect(board.logs.entries(.requestID, other).map(\.line) == ["engine: task \(other) started (any phone)"])
    }

    @Test func anEndIsLoggedWithItsStatus() throws {
        let board = try EngineFixture()
        let id = board.start()
        board.agent("POST", "/v1/tasks/\(id)/end", #"{"status":"completed"}"#)
        let end = try #require(board.logs.entries(.transition, "completed").first)
        #expect(end.line == "engine: task \(id) ended completed")
        #expect(end[.requestID] == id)
    }

    /// A change that could not be saved did not happen: no line says it did.
    @Test func aRefusedChangeIsNotLoggedAsATransition() throws {
        let board = try EngineFixture()
        board.fileSystem.inject(.failOnce, atOperation: board.fileSystem.operationCount)
        #expect(board.agent("POST", "/v1/tasks", #"{"task_title":"Lost?"}"#).status == 503)
        #expect(board.logs.entries(.transition, "started").isEmpty)
    }

    /// A Wake at debug level (one a coalescing window is too chatty for info), with its sequence as a field.
    @Test func eachWakeSentIsLoggedWithItsSequence() throws {
        let board = try EngineFixture()
        board.engine.start()
        _ = board.start()
        board.runtime.advance(by: .seconds(1))
        let wakes = board.logs.entries.filter { $0[.wakeSequence] != nil }
        #expect(wakes.map { $0[.wakeSequence] } == board.sink.envelopes.map { "\($0.sequence)" })
        #expect(wakes.count == 2)
        #expect(wakes.allSatisfy { $0.level == .debug })
    }

    @Test func aRefusalNamesItsPeer() throws {
        let board = try EngineFixture()
        #expect(board.phone("GET", "/status", peer: IPAddress(v4: 10, 99, 0, 2)).status == 403)
        #expect(
            board.engine.refusePhoneConnection(peer: IPAddress(v4: 10, 99, 0, 3), local: nil, interface: nil)?.status
                == 403)
        #expect(board.logs.entries.compactMap { $0[.peer] } == ["10.99.0.2", "10.99.0.3"])
    }
}

/// The live status goes out when the engine starts reporting and after each change that alters it, the transport's
/// included (a phone subscribing over BlueZ); it names the last Wake's time, so an idle board's line stays true
/// without a timer, and the engine arms none for it.
@Suite struct EngineStatusTests {
    @Test func theStatusFollowsChanges() throws {
        let board = try EngineFixture()
        let sent = Mutex<[String]>([])
        board.engine.reportStatus { text in sent.withLock { $0.append(text) } }
        #expect(sent.withLock { $0 } == ["no tasks, Wakes over loopback, no Wake yet"])
        board.engine.start()
        let started = try #require(sent.withLock { $0.last })
        #expect(started.hasPrefix("no tasks, Wakes over loopback, last Wake at 20"))
        board.runtime.advance(by: .seconds(2))
        let id = board.start()
        board.agent("PATCH", "/v1/tasks/\(id)", #"{"progress":0.5}"#)
        let afterChanges = sent.withLock { $0 }
        #expect(afterChanges.last?.hasPrefix("1 task, Wakes over loopback, last Wake at 20") == true)
        #expect(Set(afterChanges).count == afterChanges.count, "an unchanged line is not sent again")
        // No change for minutes: the line is still true, nothing is sent again.
        board.runtime.advance(by: .seconds(180))
        #expect(sent.withLock { $0 } == afterChanges)
        board.agent("POST", "/v1/tasks/\(id)/end", #"{"status":"completed"}"#)
        board.runtime.advance(by: .seconds(1))
        #expect(sent.withLock { $0.last }?.hasPrefix("no tasks, ") == true)
    }
    @Test func theStatusFollowsTheTransportWithoutATimer() throws {
        let board = try EngineFixture(transport: "bluez")
        let sent = Mutex<[String]>([])
        board.engine.reportStatus { text in sent.withLock { $0.append(text) } }
        #expect(sent.withLock { $0 } == ["no tasks, no phone subscribed, no Wake yet"])
        #expect(board.runtime.pendingTimers.isEmpty, "nothing looks at the line on a timer")
        board.sink.subscribe(true)
        board.runtime.advance(by: .zero)
        #expect(sent.withLock { $0.last } == "no tasks, phone subscribed, no Wake yet")
        board.sink.subscribe(false)
        board.runtime.advance(by: .zero)
        #expect(sent.withLock { $0.last } == "no tasks, no phone subscribed, no Wake yet")
        #expect(sent.withLock { $0 }.count == 3)
    }

    /// Nothing holds up a Wake that its change need not wait for: the change's timers are armed, and its status
    /// line sent, once the Wake is out (each wakes another thread, which could take the CPU from the Wake).
    @Test func theWakeGoesOutBeforeItsChangesTimersAndStatusLine() throws {
        let board = try EngineFixture()
        let wakesAtEachLine = Mutex<[Int]>([])
        board.engine.reportStatus { [sink = board.sink] _ in wakesAtEachLine.withLock { $0.append(sink.wakes.count) } }
        board.engine.start()
        board.runtime.advance(by: .seconds(2))
        let before = wakesAtEachLine.withLock { $0 }
        let id = board.start()
        // When the new task goes stale with no news (`stale_after_seconds`, 300 by default).
        let stale = Duration.seconds(2 + 300)
        #expect(board.sink.wakes.count == 2)
        #expect(board.sink.timersArmedAtEachWake.last?.contains(stale) == false, "armed before the Wake went out")
        #expect(board.runtime.pendingTimers.contains(stale), "armed once it was out")
        #expect(wakesAtEachLine.withLock { $0 } == before + [2], "the task's line went out after its Wake")

        board.runtime.advance(by: .seconds(1))
        board.agent("PATCH", "/v1/tasks/\(id)", #"{"current_step":"next"}"#)
        #expect(board.sink.wakes.count == 3)
        // Its lazy write of tasks.json, 1 s after a change that need not be durable at once.
        #expect(board.sink.timersArmedAtEachWake.last?.contains(.seconds(4)) == false)
        #expect(board.runtime.pendingTimers.contains(.seconds(4)))
    }
}
