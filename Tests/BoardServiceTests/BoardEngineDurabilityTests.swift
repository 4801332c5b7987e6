import BoardAPI
import FoundationEssentials
import Platform
import Testing

@testable import BoardService

/// What the engine says and serves when the disk lets it down: answers that match what is on disk, tags that
/// never name two contents, and logs that tell a long failure without repeating it every second.
@Suite struct BoardEngineDurabilityTests {
    /// A crash inside the lazy-write second loses an update; the restarted board hands out that revision again,
    /// with other content. The phone's tag from before the crash must not match it.
    @Test func anETagIsNeverReusedForOtherContentAfterACrash() throws {
        let board = try EngineFixture()
        board.engine.start()
        let id = board.start()
        board.agent("PATCH", "/v1/tasks/\(id)", #"{"current_step":"before the crash"}"#)
        let seen = board.phone("GET", "/api/live-activity/current")
        let tag = try #require(seen.header("ETag"))
        #expect(seen.text.contains("before the crash"))
        #expect(board.phone("GET", "/api/live-activity/current", headers: ["If-None-Match": tag]).status == 304)
        let lostRevision = try #require(board.engine.revision(of: id))

        let after = try board.restartedAfterCrash()
        after.engine.start()
        #expect(after.loaded.store.task(id: id)?.currentStep == "", "the lazy write was lost")
        after.agent("PATCH", "/v1/tasks/\(id)", #"{"current_step":"after the crash"}"#)
        #expect(after.engine.revision(of: id) == lostRevision, "the revision number of the update the crash lost")
        let revisit = after.phone("GET", "/api/live-activity/current", headers: ["If-None-Match": tag])
        #expect(revisit.status == 200, "a stale 304 would keep the phone on content that is gone")
        #expect(revisit.text.contains("after the crash"))
        #expect(revisit.header("ETag") != tag)
    }

    /// The directory sync after the rename fails: tasks.json holds the start, so it stands, is served and is
    /// written again; the agent is told that, not "nothing was changed".
    @Test func aStartWhoseDirectorySyncFailsStandsAndSaysSo() throws {
        let board = try EngineFixture()
        board.engine.start()
        // The start's write: the temporary, its fsync, the rename, then the directory's fsync, which fails.
        board.fileSystem.inject(.failOnce, atOperation: board.fileSystem.operationCount + 3)
        let response = board.agent("POST", "/v1/tasks", #"{"task_title":"Made","request_id":"chat_made"}"#)
        #expect(response.status == 503)
        #expect(response.text.contains(#""code":"storage_unconfirmed""#))
        #expect(response.text.contains("the change to chat_made was made and is served"))
        #expect(!response.text.contains("nothing was changed"))
        #expect(board.agent("GET", "/v1/tasks/chat_made").status == 200)
        #expect(board.phone("GET", "/api/live-activity/current").text.contains("chat_made"))
        #expect(
            board.logs.lines(at: .error).contains {
                $0.contains("writing tasks.json failed: POST /v1/tasks")
                    && $0.contains("in place, not known to be durable")
            })
        board.runtime.advance(by: .seconds(1))
        #expect(board.logs.lines(at: .notice).contains { $0.contains("writing tasks.json works again") })
        let restarted = try board.restartedAfterCrash()
        #expect(restarted.loaded.store.task(id: "chat_made")?.taskTitle == "Made", "written again, durably")
    }

    /// A retry of that start is answered as a retry, not as a second task.
    @Test func aRetriedStartAfterAnUnconfirmedOneFindsIt() throws {
        let board = try EngineFixture()
        board.fileSystem.inject(.failOnce, atOperation: board.fileSystem.operationCount + 3)
        let body = #"{"task_title":"Once"}"#
        #expect(board.agent("POST", "/v1/tasks", body, headers: ["Idempotency-Key": "k-1"]).status == 503)
        let retry = board.agent("POST", "/v1/tasks", body, headers: ["Idempotency-Key": "k-1"])
        #expect(retry.status == 201)
        #expect(board.agent("GET", "/v1/tasks").text.components(separatedBy: "\"Once\"").count == 2, "one task")
    }

    /// A full disk fails the lazy write every second: one line when it starts, one a minute while it lasts,
    /// one when it ends; the update is written as soon as there is room.
    @Test func aFullDiskIsLoggedOnceAMinuteNotEverySecond() throws {
        let board = try EngineFixture()
        board.engine.start()
        let id = board.start()
        board.fileSystem.inject(.stop, atOperation: board.fileSystem.operationCount)
        board.agent("PATCH", "/v1/tasks/\(id)", #"{"progress":0.5}"#)
        board.runtime.advance(by: .seconds(150))
        let errors = board.logs.lines(at: .error).filter { $0.contains("tasks.json") }
        #expect(errors.count == 3, "\(errors)")
        #expect(errors.first?.hasPrefix("engine: writing tasks.json failed: /var/lib/aiden-board/tasks.json") == true)
        #expect(errors.dropFirst().allSatisfy { $0.contains("still failing, 60 times in the last 60 s") })
        board.fileSystem.crash()  // room again; only what was durable is left, the board still holds the rest
        board.runtime.advance(by: .seconds(1))
        #expect(try board.storedTasks()?.task(id: id)?.progress == 0.5)
        #expect(
            board.logs.lines(at: .notice).last
                == "engine: writing tasks.json works again, after failing 150 times over 150 s")
    }

    /// The Wake transport not registered with bluetoothd fails every Wake: the same rate limit.
    @Test func wakesThatCannotBeDeliveredAreLoggedOnceAMinute() throws {
        let board = try EngineFixture()
        board.sink.failing.store(true, ordering: .relaxed)
        board.engine.start()
        board.runtime.advance(by: .seconds(1))
        let id = board.start()
        for step in 2...150 {
            board.runtime.advance(by: .seconds(1))
            board.agent("PATCH", "/v1/tasks/\(id)", #"{"current_step":"\#(step)"}"#)
        }
        #expect(board.engine.wakeFacts.sendFailures == 151, "every Wake was tried")
        let warnings = board.logs.lines(at: .warning)
        #expect(warnings.count == 3, "\(warnings)")
        #expect(warnings.first == "engine: delivering Wakes failed: wake 1 not delivered: radio off")
        #expect(warnings.dropFirst().allSatisfy { $0.contains("still failing, 60 times in the last 60 s") })
        board.sink.failing.store(false, ordering: .relaxed)
        board.runtime.advance(by: .seconds(1))
        board.agent("PATCH", "/v1/tasks/\(id)", #"{"current_step":"heard"}"#)
        #expect(
            board.logs.lines(at: .notice).last
                == "engine: delivering Wakes works again, after failing 151 times over 151 s")
    }
}

extension BoardEngine {
    /// The revision of a task as the agent API shows it now.
    fileprivate func revision(of id: String) -> UInt64? {
        let answer = handleAgent(HTTPRequest(method: "GET", path: "/v1/tasks/\(id)"))
        let text = String(decoding: answer.body, as: UTF8.self)
        guard let range = text.range(of: #""revision":"#) else { return nil }
        return UInt64(text[range.upperBound...].prefix { $0.isNumber })
    }
}
