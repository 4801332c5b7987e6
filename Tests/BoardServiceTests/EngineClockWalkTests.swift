import BoardAPI
import FoundationEssentials
import LiveActivity
import TestSupport
import Testing

@testable import BoardService

/// The app-state clock walk through the engine: a process on the phone host sends 1,000 reports, each
/// `phone_time` 10 years ahead of the stamps the last one produced (the old sanity window), then one back at
/// 2024, and the board restarts twice. An agent that heartbeats every 30 s (stale after 60 s, abandoned after
/// 120 s) keeps its task running throughout, and so does one started after the walk.
@Suite struct EngineClockWalkTests {
    static let json = ["content-type": "application/json"]

    func stamp(_ board: EngineFixture) throws -> Date {
        let status = board.phone("GET", "/status").text
        let marker = #""offset_seconds":"#
        let range = try #require(status.range(of: marker))
        let digits = status[range.upperBound...].prefix { $0 == "-" || $0.isNumber }
        return board.runtime.wallNow().addingTimeInterval(Double(try #require(Int(digits))))
    }

    func beat(_ board: EngineFixture, _ ids: [String]) {
        board.runtime.advance(by: .seconds(30))
        for id in ids {
            #expect(board.agent("POST", "/v1/tasks/\(id)/heartbeat").status == 200)
        }
    }

    func expectRunning(_ board: EngineFixture, _ ids: [String], _ moment: String) {
        for id in ids {
            let task = board.agent("GET", "/v1/tasks/\(id)").text
            #expect(task.contains(#""status":"running""#), "\(moment): \(task)")
            #expect(task.contains(#""stale_since":null"#), "\(moment): \(task)")
        }
    }

    @Test func aWalkOfReportsToTheClampAndBackEndsNoHeartbeatingTask() throws {
        var board = try EngineFixture(runtime: ManualRuntime(wallOrigin: Date(timeIntervalSince1970: 100)))
        board.engine.start()
        let body = #"{"task_title":"T","request_id":"ID","stale_after_seconds":60,"abandon_after_seconds":120}"#
        #expect(board.agent("POST", "/v1/tasks", body.replacingOccurrences(of: "ID", with: "a")).status == 201)
        let tenYears = 10 * 365.0 * 86_400
        for report in 1...1000 {
            let ahead = Timestamp.format(try stamp(board).addingTimeInterval(tenYears))
            _ = board.phone(
                "POST", "/api/phone/app-state", headers: Self.json,
                body: #"{"state":"foreground","phone_time":"\#(ahead)"}"#)
            if report % 4 == 0 { beat(board, ["a"]) }
        }
        #expect(try stamp(board) < BoardClock.plausibleUntil, "the stamps stayed inside the plausible range")
        #expect(board.agent("POST", "/v1/tasks", body.replacingOccurrences(of: "ID", with: "b")).status == 201)
        for _ in 1...10 { beat(board, ["a", "b"]) }
        expectRunning(board, ["a", "b"], "after the walk")

        _ = board.phone(
            "POST", "/api/phone/app-state", headers: Self.json,
            body: #"{"state":"foreground","phone_time":"2024-01-01T00:00:00Z"}"#)
        for _ in 1...10 { beat(board, ["a", "b"]) }
        board.engine.flush()
        board = try board.restartedAfterCrash()
        board.engine.start()
        for _ in 1...10 { beat(board, ["a", "b"]) }
        expectRunning(board, ["a", "b"], "after a restart")

        // The board's own clock is set at last (2026), the phone reports 2024 again, and the board restarts.
        board.runtime.stepWallClock(by: 1_781_247_600 - 100)
        _ = board.phone(
            "POST", "/api/phone/app-state", headers: Self.json,
            body: #"{"state":"foreground","phone_time":"2024-01-01T00:00:00Z"}"#)
        board.engine.flush()
        board = try board.restartedAfterCrash(seed: 3)
        board.engine.start()
        for _ in 1...10 { beat(board, ["a", "b"]) }
        expectRunning(board, ["a", "b"], "after the second restart")

        // The check has teeth: silence still ends a task, 120 s after its last heartbeat.
        board.runtime.advance(by: .seconds(119))
        #expect(board.agent("GET", "/v1/tasks/a").text.contains(#""status":"running""#), "119 s silent: stale, running")
        board.runtime.advance(by: .seconds(1))
        #expect(board.agent("GET", "/v1/tasks/a").text.contains(#""status":"failed""#))
    }
}
