import FoundationEssentials
import Testing

@testable import BoardAPI

@Suite struct AgentRouterTests {
    @Test func startAnswers201WithTheSnapshotAndLocation() throws {
        var board = try RouterFixture()
        let result = board.agent("POST", "/v1/tasks", body: #"{"task_title":"Open Settings","phone_id":"p1"}"#)
        #expect(result.status == 201)
        let snapshot = try #require(result.json?["live_activity"])
        let id = try #require(snapshot["request_id"]?.string)
        #expect(id.hasPrefix("chat_"))
        #expect(snapshot["status"]?.string == "running")
        #expect(result.response.header("Location") == "/v1/tasks/\(id)")
        #expect(result.change?.durability == .immediate)
    }

    @Test func idempotentStartReturnsTheFirstResult() throws {
        var board = try RouterFixture()
        let body = #"{"task_title":"T"}"#
        let first = board.agent("POST", "/v1/tasks", headers: ["Idempotency-Key": "k1"], body: body)
        let retry = board.agent("POST", "/v1/tasks", headers: ["Idempotency-Key": "k1"], body: body)
        #expect(first.status == 201 && retry.status == 201)
        #expect(first.json?["live_activity"]?["request_id"] == retry.json?["live_activity"]?["request_id"])
        #expect(retry.change == nil, "a replay is not a change: no write, no Wake")
        #expect(board.state.store.count == 1)
    }

    @Test func retriedUpdatesAndEndsWithTheirKeysAreAnsweredNotRepeated() throws {
        var board = try RouterFixture()
        let id = board.start(#"{"task_title":"T"}"#)
        let body = #"{"current_step":"Look","expected_revision":1}"#
        let first = board.agent("PATCH", "/v1/tasks/\(id)", headers: ["Idempotency-Key": "u-1"], body: body)
        #expect(first.status == 200)
        #expect(first.change?.durability == .lazy)
        let retry = board.agent("PATCH", "/v1/tasks/\(id)", headers: ["Idempotency-Key": "u-1"], body: body)
        #expect(retry.status == 200, "a stale expected_revision on a replay is not a conflict")
        #expect(retry.json?["live_activity"] == first.json?["live_activity"])
        #expect(retry.change == nil, "a replay is not a change: no write, no Wake")
        let reused = board.agent(
            "PATCH", "/v1/tasks/\(id)", headers: ["Idempotency-Key": "u-1"], body: #"{"current_step":"Other"}"#)
        #expect(reused.status == 409)
        #expect(reused.json?["error"]?["message"]?.string?.contains("u-1") == true)

        let end = #"{"status":"completed"}"#
        let ended = board.agent("POST", "/v1/tasks/\(id)/end", headers: ["Idempotency-Key": "e-1"], body: end)
        #expect(ended.status == 200)
        #expect(ended.change?.durability == .immediate)
        let again = board.agent("POST", "/v1/tasks/\(id)/end", headers: ["Idempotency-Key": "e-1"], body: end)
        #expect(again.status == 200)
        #expect(again.change == nil)
        let badKey = board.agent(
            "PATCH", "/v1/tasks/\(id)", headers: ["Idempotency-Key": "has space"], body: #"{"current_step":"x"}"#)
        #expect(badKey.status == 400)
        #expect(badKey.json?["error"]?["field"]?.string == "Idempotency-Key")
    }

    @Test func eventsOnTheAgentSocketFollowTheRing() throws {
        var board = try RouterFixture()
        let id = board.start(#"{"task_title":"T"}"#)
        _ = board.agent("POST", "/v1/tasks/\(id)/end", body: #"{"status":"failed","last_error":"boom"}"#)
        let page = try #require(board.agent("GET", "/v1/events").json)
        #expect(page["status"]?.string == "ok")
        #expect(page["generation"]?.string == "g1")
        #expect(page["epoch"]?.number == 4660)
        #expect(page["events"]?.array?.compactMap { $0["transition"]?.string } == ["started", "failed"])
        #expect(page["events"]?[0]?["request_id"]?.string == id)
        #expect(page["next"]?.number == 2)
        let rest = try #require(board.agent("GET", "/v1/events?since=1&generation=g1").json)
        #expect(rest["events"]?.array?.compactMap { $0["id"]?.number } == [2])
        #expect(rest["reset_required"]?.bool == false)
        let other = try #require(board.agent("GET", "/v1/events?since=2&generation=g0").json)
        #expect(other["reset_required"]?.bool == true)
        #expect(other["events"]?.array?.count == 2)
        // The phone's endpoint gives the same page.
        #expect(board.phone("GET", "/api/live-activity/events?since=1&generation=g1").json == rest)

        let bad = board.agent("GET", "/v1/events?since=-1")
        #expect(bad.status == 400)
        #expect(bad.json?["error"]?["field"]?.string == "since")
        let post = board.agent("POST", "/v1/events")
        #expect(post.status == 405)
        #expect(post.response.header("Allow") == "GET")
    }

    @Test func updateAndEndFollowTheWriteRules() throws {
        var board = try RouterFixture()
        let id = board.start(#"{"task_title":"T"}"#)
        let update = board.agent("PATCH", "/v1/tasks/\(id)", body: #"{"current_step":"Look","progress":0.5}"#)
        #expect(update.status == 200)
        #expect(update.json?["live_activity"]?["progress"]?.number == 0.5)
        #expect(update.change?.durability == .lazy)
        let revision = try #require(update.json?["live_activity"]?["revision"]?.number)

        let stale = board.agent(
            "PATCH", "/v1/tasks/\(id)",
            body: #"{"current_step":"x","expected_revision":\#(Int(revision) - 1)}"#)
        #expect(stale.status == 409)
        #expect(stale.json?["error"]?["code"]?.string == "conflict")
        #expect(stale.change == nil)

        let end = board.agent("POST", "/v1/tasks/\(id)/end", body: #"{"status":"failed","last_error":"boom"}"#)
        #expect(end.status == 200)
        #expect(end.json?["live_activity"]?["status"]?.string == "failed")
        #expect(end.json?["live_activity"]?["ended_at"]?.string != nil)
        #expect(end.change?.durability == .immediate)

        let late = board.agent("PATCH", "/v1/tasks/\(id)", body: #"{"current_step":"after"}"#)
        #expect(late.status == 409)
        #expect(board.state.store.task(id: id)?.currentStep == "Look", "a refused update changes nothing")
    }

    @Test func listAndShow() throws {
        var board = try RouterFixture()
        let a = board.start(#"{"task_title":"A"}"#)
        let b = board.start(#"{"task_title":"B"}"#)
        let list = try #require(board.agent("GET", "/v1/tasks").json?["tasks"]?.array)
        #expect(list.compactMap { $0["request_id"]?.string } == [b, a])
        #expect(board.agent("GET", "/v1/tasks/\(a)").json?["live_activity"]?["task_title"]?.string == "A")
        let missing = board.agent("GET", "/v1/tasks/chat_missing")
        #expect(missing.status == 404)
        #expect(missing.json?["error"]?["code"]?.string == "not_found")
        #expect(board.agent("PATCH", "/v1/tasks/chat_missing", body: #"{"current_step":"x"}"#).status == 404)
        #expect(board.agent("POST", "/v1/tasks/chat_missing/end", body: #"{"status":"completed"}"#).status == 404)
    }

    /// Bad input: the status code, a message naming the field, and nothing stored.
    @Test(arguments: [
        (#"{"task_title":"T","progress":1.5}"#, 400, "progress"),
        (#"{"task_title":"T","progress":"half"}"#, 400, "progress"),
        (#"{"task_title":"T","phase":"dreaming"}"#, 400, "phase"),
        (#"{"task_title":"T","status":"completed"}"#, 400, "status"),
        (#"{"task_title":7}"#, 400, "task_title"),
        (#"{"current_step":"no title"}"#, 400, "task_title"),
        ("{\"task_title\":\"\(String(repeating: "x", count: 201))\"}", 400, "task_title"),
        ("{\"task_title\":\"T\",\"current_step\":\"\(String(repeating: "é", count: 501))\"}", 400, "current_step"),
        (#"{"task_title":"T","request_id":"has space"}"#, 400, "request_id"),
        (#"{"task_title":"pay\u202elanoitan"}"#, 400, "task_title"),
        (#"{"task_title":"T","current_step":"\u009b2J"}"#, 400, "current_step"),
    ])
    func invalidStartsNameTheField(body: String, status: Int, field: String) throws {
        var board = try RouterFixture()
        let result = board.agent("POST", "/v1/tasks", body: body)
        #expect(result.status == status)
        #expect(result.json?["status"]?.string == "error")
        #expect(result.json?["error"]?["code"]?.string == "invalid")
        #expect(result.json?["error"]?["field"]?.string == field)
        #expect(result.json?["error"]?["message"]?.string?.contains(field) == true)
        #expect(board.state.store.count == 0)
        #expect(result.change == nil)
    }

    @Test(arguments: [[], Array("not json".utf8), Array("[]".utf8), [0x7B, 0x22, 0xC3, 0x28, 0x22, 0x7D]])
    func malformedBodiesAre400(body: [UInt8]) throws {
        var board = try RouterFixture()
        let result = board.agent("POST", "/v1/tasks", bodyBytes: body)
        #expect(result.status == 400)
        #expect(result.json?["error"]?["code"]?.string == "invalid")
        #expect(board.state.store.count == 0)
    }

    @Test func endRejectsNonTerminalStatuses() throws {
        var board = try RouterFixture()
        let id = board.start(#"{"task_title":"T"}"#)
        let result = board.agent("POST", "/v1/tasks/\(id)/end", body: #"{"status":"running"}"#)
        #expect(result.status == 400)
        #expect(result.json?["error"]?["field"]?.string == "status")
        #expect(board.state.store.task(id: id)?.status == .running)
    }

    @Test func heartbeatIsNewsWithoutAChange() throws {
        var board = try RouterFixture()
        let id = board.start(#"{"task_title":"T","stale_after_seconds":60}"#)
        let revision = board.state.store.revision
        let beat = board.agent("POST", "/v1/tasks/\(id)/heartbeat", body: "ignored")
        #expect(beat.status == 200 && beat.json?["live_activity"]?["stale_after_seconds"] == .number(60))
        #expect(beat.change == nil && board.state.store.revision == revision, "no change, no Wake")
        #expect(board.agent("POST", "/v1/tasks/missing/heartbeat").status == 404)
        #expect(board.agent("GET", "/v1/tasks/\(id)/heartbeat").response.header("Allow") == "POST")
    }

    @Test func unknownPathsAndMethods() throws {
        var board = try RouterFixture()
        #expect(board.agent("GET", "/v2/tasks").status == 404)
        #expect(board.agent("GET", "/v1/tasks/").status == 404)
        #expect(board.agent("GET", "/v1/tasks/a/b/c").status == 404)
        let delete = board.agent("DELETE", "/v1/tasks")
        #expect(delete.status == 405)
        #expect(delete.response.header("Allow") == "GET, POST")
        #expect(board.agent("PUT", "/v1/tasks/x").response.header("Allow") == "GET, PATCH")
        #expect(board.agent("GET", "/v1/tasks/x/end").response.header("Allow") == "POST")
    }

    @Test func statusOnTheAgentSocket() throws {
        var board = try RouterFixture()
        let status = try #require(board.agent("GET", "/v1/status").json)
        #expect(status["status"]?.string == "ok")
        #expect(status["version"]?.string == "0.1.0")
    }

    @Test func writesAreRefusedWhileLiveActivityIsDisabled() throws {
        var board = try RouterFixture()
        board.facts.liveActivityEnabled = false
        let result = board.agent("POST", "/v1/tasks", body: #"{"task_title":"T"}"#)
        #expect(result.status == 503)
        #expect(result.json?["error"]?["code"]?.string == "disabled")
        #expect(board.state.store.count == 0)
    }
}
