import Foundation
import Testing

/// The person's answers end to end on a live loopback board: posted over HTTP to its phone listener on
/// 127.0.0.1 (the test board's listener, which loopback may use), seen by the built aidenctl.
@Suite(.serialized) struct AnswerFlowTests {
    typealias Running = AgentCommandTests.Running

    private func answer(_ board: BoardProcess, _ id: String, _ body: String) throws -> (Int, [String: Any]) {
        let response = try board.http(
            "/api/live-activity/tasks/\(id)/answer", method: "POST", body: Array(body.utf8),
            headers: [("Content-Type", "application/json")])
        return (response.status, jsonObject(String(decoding: response.body, as: UTF8.self)) ?? [:])
    }

    private func snapshot(_ board: BoardProcess, _ id: String) throws -> [String: Any] {
        try #require(try board.agent("GET", "/v1/tasks/\(id)").json?["live_activity"] as? [String: Any])
    }

    /// A bounded wait (never a timing assertion).
    private func waitUntil(timeoutSeconds: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }

    @Test func aDoneAnswerPostedToThePhoneListenerEndsTaskWait() throws {
        let board = try BoardProcess()
        try board.start()
        defer { board.stop() }
        let start = try board.aidenctl([
            "task", "start", "--title", "PIN", "--request-id", "pin-1", "--phase", "waiting_user", "--action",
            "request_user_input", "-q",
        ])
        #expect(start.status == 0)
        let waiting = try Running(["task", "wait", "pin-1", "--for", "answer", "--timeout", "20"], board: board)
        let early = try answer(board, "pin-1", #"{"answer":"stop","answer_id":"a-0"}"#)
        #expect(early.0 == 409, "no can_stop")
        let (status, body) = try answer(board, "pin-1", #"{"answer":"done","answer_id":"a-1","phone_id":"p1"}"#)
        #expect(status == 200)
        #expect((body["answer"] as? [String: Any])?["answer"] as? String == "done")
        #expect(waiting.finish() == 0)
        #expect(waiting.standardOutput == "answered done\n")
        #expect(board.log.contains("task pin-1: answered done from phone p1 (answer_id a-1)"))

        // Recorded already: a second wait returns at once, and the retry of the press records nothing.
        let again = try board.aidenctl(["--json", "task", "wait", "--id", "pin-1", "--for", "answer"])
        #expect(again.status == 0)
        #expect(jsonObject(again.output)?["answer"] as? String == "done")
        let retry = try answer(board, "pin-1", #"{"answer":"done","answer_id":"a-1","phone_id":"p1"}"#)
        #expect(retry.0 == 200)
        let events = try board.aidenctl(["events"])
        #expect(events.output.components(separatedBy: "answered").count == 2, "one answered event: \(events.output)")
        #expect(try snapshot(board, "pin-1")["answer"] as? [String: Any] != nil)
    }

    @Test func aStopFromThePhoneEndsTaskRunCanceled() throws {
        let board = try BoardProcess()
        try board.start()
        defer { board.stop() }
        let running = try Running(
            ["task", "run", "--title", "Sleep", "--request-id", "sleep-1", "--", "sleep", "60"], board: board)
        #expect(
            waitUntil {
                (try? board.agent("GET", "/v1/tasks/sleep-1"))?.json.flatMap { $0["live_activity"] as? [String: Any] }?[
                    "status"] as? String == "running"
            })
        #expect(try snapshot(board, "sleep-1")["can_stop"] as? Bool == true)
        let waiter = try Running(["task", "wait", "sleep-1", "--for", "stop"], board: board)
        // Let the waiter's request reach the board: held there, it hears the stop with the phone that asked; one
        // that came after the run ended the task hears it from the ring, without the phone (below).
        usleep(500_000)
        let (status, body) = try answer(board, "sleep-1", #"{"answer":"stop","answer_id":"s-1","phone_id":"p1"}"#)
        #expect(status == 200, "\(body)")
        #expect(running.finish() == 128 + SIGTERM)
        #expect(running.standardError.contains("stop requested from phone p1; stopping the command (SIGTERM)"))
        let task = try snapshot(board, "sleep-1")
        #expect(task["status"] as? String == "canceled")
        #expect(task["last_error"] as? String == "stopped from the phone")
        #expect(waiter.finish() == 0)
        #expect(waiter.standardOutput == "stop requested from phone p1\n")
        let late = try answer(board, "sleep-1", #"{"answer":"stop","answer_id":"s-2"}"#)
        #expect(late.1["error"].flatMap { ($0 as? [String: Any])?["code"] as? String } == "task_ended")
        let dismissed = try answer(board, "sleep-1", #"{"answer":"dismiss","answer_id":"s-3"}"#)
        #expect(dismissed.0 == 200)
        #expect(try snapshot(board, "sleep-1")["dismissed_at"] as? String != nil)
        // The end cleared the stop from the task; the ring still says it came before the end.
        let afterEnd = try board.aidenctl(["task", "wait", "sleep-1", "--for", "stop", "--timeout", "1"])
        #expect(afterEnd.status == 0, "\(afterEnd.error)")
        #expect(afterEnd.output == "stop requested from the phone\n")
        let answer = try board.aidenctl(["task", "wait", "sleep-1", "--for", "answer", "--timeout", "1"])
        #expect(answer.status == 1, "ended before an answer could come: \(answer.error)")
    }

    /// The ring still holds the stop of an earlier task under the same request id (pruned after its retention):
    /// a new run of that id is not stopped by it.
    @Test func aStopLeftInTheRingByAnEarlierTaskOfTheSameIDStopsNothing() throws {
        let board = try BoardProcess(extra: "[live_activity]\nretention_seconds = 1")
        try board.start()
        defer { board.stop() }
        _ = try board.aidenctl([
            "task", "start", "--title", "Old", "--request-id", "again-1", "--can-stop", "true", "-q",
        ])
        #expect(try answer(board, "again-1", #"{"answer":"stop","answer_id":"old-1"}"#).0 == 200)
        _ = try board.aidenctl(["task", "end", "again-1", "--status", "canceled", "-q"])
        #expect(waitUntil { (try? board.agent("GET", "/v1/tasks/again-1"))?.status == 404 }, "pruned")
        let run = try board.aidenctl([
            "task", "run", "--title", "New", "--request-id", "again-1", "--idempotency-key", "new-start", "--", "sleep",
            "1",
        ])
        #expect(run.status == 0, "\(run.error)")
        #expect(try snapshot(board, "again-1")["status"] as? String == "completed")
    }

    @Test func aWaitGivesUpAfterItsTimeoutWithItsOwnStatus() throws {
        let board = try BoardProcess()
        try board.start()
        defer { board.stop() }
        _ = try board.aidenctl(["task", "start", "--title", "T", "--request-id", "t-1", "-q"])
        let result = try board.aidenctl(["task", "wait", "t-1", "--for", "end", "--timeout", "1"])
        #expect(result.status == 75)
        #expect(result.error.contains("gave up waiting for its end of task t-1 after 1 s"))
    }

    @Test func aCrossSiteOrWrongTypeAnswerIsRefusedBeforeItsBody() throws {
        let board = try BoardProcess()
        try board.start()
        defer { board.stop() }
        _ = try board.aidenctl(["task", "start", "--title", "T", "--request-id", "t-1", "--can-stop", "true", "-q"])
        let path = "/api/live-activity/tasks/t-1/answer"
        let body = Array(#"{"answer":"stop","answer_id":"x-1"}"#.utf8)
        let page = try board.http(
            path, method: "POST", body: body,
            headers: [("Content-Type", "application/json"), ("Origin", "http://evil.example")])
        #expect(page.status == 403)
        let form = try board.http(path, method: "POST", body: body, headers: [("Content-Type", "text/plain")])
        #expect(form.status == 415)
        #expect(try snapshot(board, "t-1")["answer"] is NSNull)
    }
}
