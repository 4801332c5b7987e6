import BoardAPI
import FoundationEssentials
import LiveActivity
import NetworkAddress
import Platform
import TestSupport
import Testing

@testable import BoardService

/// The person's answer through the engine: recorded by the writer, on disk before the 200, published, announced
/// with a Wake and logged; a storage failure answers 503 and changes nothing.
@Suite struct EngineAnswerTests {
    static func answer(_ board: EngineFixture, _ id: String, _ body: String) -> HTTPResponse {
        board.engine.handlePhone(
            HTTPRequest(
                method: "POST", path: "/api/live-activity/tasks/\(id)/answer",
                headers: ["host": "192.168.42.1:8080", "content-type": "application/json"], body: Array(body.utf8),
                peer: .ip(IPAddress(v4: 192, 168, 42, 2)), localAddress: IPAddress(v4: 192, 168, 42, 1))
        ).response()
    }

    /// A board whose clock is unset stamps with the phone's once the phone said its time (docs/protocol.md §3.7):
    /// the person's answer too, like every other stamp.
    @Test func anAnswerIsStampedOnTheClockEveryOtherStampFollows() throws {
        let board = try EngineFixture(runtime: ManualRuntime(wallOrigin: Date(timeIntervalSince1970: 100)))
        board.engine.start()
        _ = board.phone(
            "POST", "/api/phone/app-state", headers: ["content-type": "application/json"],
            body: #"{"state":"foreground","phone_time":"2026-12-06T12:00:00Z"}"#)
        board.agent("POST", "/v1/tasks", #"{"task_title":"Build","request_id":"chat_c","can_stop":true}"#)
        let response = Self.answer(board, "chat_c", #"{"answer":"stop","answer_id":"ans-1"}"#)
        #expect(response.status == 200, "\(response.text)")
        let answer = try #require(board.storedTasks()?.task(id: "chat_c")?.answer)
        #expect(Timestamp.format(answer.answeredAt).hasPrefix("2026-12-06T12:00"), "not 1970, the board's unset clock")
    }

    @Test func aStopIsDurableBeforeItsAnswerAndIsAnnounced() throws {
        let board = try EngineFixture()
        board.engine.start()
        board.agent("POST", "/v1/tasks", #"{"task_title":"Build","request_id":"chat_b","can_stop":true}"#)
        board.runtime.advance(by: .seconds(2))
        let wakesBefore = board.sink.wakes.count
        let response = Self.answer(board, "chat_b", #"{"answer":"stop","answer_id":"ans-1","phone_id":"phone-1"}"#)
        #expect(response.status == 200, "\(response.text)")
        #expect(response.text.contains(#""ok":true"#))
        #expect(try board.storedTasks()?.task(id: "chat_b")?.answer?.answerID == "ans-1", "on disk before the 200")
        #expect(board.phone("GET", "/api/live-activity/current").text.contains(#""answer_id":"ans-1""#))
        board.runtime.advance(by: .seconds(1))
        #expect(board.sink.wakes.count == wakesBefore + 1, "a Wake announces it")
        #expect(
            board.logs.lines(at: .notice).contains {
                $0.contains("task chat_b: stop requested from phone phone-1 (answer_id ans-1)")
            })
        let retry = Self.answer(board, "chat_b", #"{"answer":"stop","answer_id":"ans-1","phone_id":"phone-1"}"#)
        #expect(retry.text == response.text)
        board.runtime.advance(by: .seconds(1))
        #expect(board.sink.wakes.count == wakesBefore + 1, "a retry changes nothing and sends no Wake")
        let restarted = try board.restartedAfterCrash()
        #expect(restarted.loaded.store.task(id: "chat_b")?.answer?.answer == .stop)
    }

    @Test func aRefusalNeverReachesTheWriterAndAFailedWriteChangesNothing() throws {
        let board = try EngineFixture()
        board.engine.start()
        board.agent("POST", "/v1/tasks", #"{"task_title":"Plain","request_id":"chat_p"}"#)
        let refused = Self.answer(board, "chat_p", #"{"answer":"stop","answer_id":"ans-1"}"#)
        #expect(refused.status == 409)
        #expect(refused.text.contains(#""code":"not_stoppable""#))
        board.agent("POST", "/v1/tasks/chat_p/end", #"{"status":"completed"}"#)
        board.fileSystem.inject(.failOnce, atOperation: board.fileSystem.operationCount + 1)
        let failed = Self.answer(board, "chat_p", #"{"answer":"dismiss","answer_id":"ans-2"}"#)
        #expect(failed.status == 503)
        #expect(failed.text.contains("nothing was changed"))
        #expect(board.agent("GET", "/v1/tasks/chat_p").text.contains(#""dismissed_at":null"#))
        let again = Self.answer(board, "chat_p", #"{"answer":"dismiss","answer_id":"ans-2"}"#)
        #expect(again.status == 200, "the press can be retried once the disk works")
    }
}
