import FoundationEssentials
import LiveActivity
import Testing
import WireFormat

@testable import BoardAPI

/// `POST /api/live-activity/tasks/{request_id}/answer` whole: the body, the answers, and how the agent sees them.
@Suite struct PhoneAnswerRouteTests {
    static let json = ["content-type": "application/json"]

    static func answer(_ fixture: inout RouterFixture, _ id: String, _ body: String) -> RouteResult {
        fixture.phone("POST", "/api/live-activity/tasks/\(id)/answer", headers: json, body: body)
    }

    @Test func aStopIsAnsweredWithTheAnswerAndTheTaskAndTheAgentSeesIt() throws {
        var fixture = try RouterFixture()
        let id = fixture.start(#"{"task_title":"Build","can_stop":true,"phone_id":"phone-1"}"#)
        let body = #"{"answer":"stop","answer_id":"ans-5f0c","phone_id":"phone-1","later":true}"#
        let result = Self.answer(&fixture, id, body)
        #expect(result.status == 200)
        #expect(result.json?["status"] == .string("ok"))
        #expect(result.json?["ok"] == .bool(true))
        #expect(result.json?["answer"]?["answer"] == .string("stop"))
        #expect(result.json?["answer"]?["answer_id"] == .string("ans-5f0c"))
        #expect(result.json?["answer"]?["phone_id"] == .string("phone-1"))
        #expect(result.json?["answer"]?["answered_at"] == .string(Timestamp.format(fixture.now)))
        #expect(result.json?["task"]?["request_id"] == .string(id))
        #expect(result.json?["task"]?["answer"]?["answer"] == .string("stop"))
        #expect(result.change?.durability == .immediate)

        let shown = fixture.agent("GET", "/v1/tasks/\(id)")
        #expect(shown.json?["live_activity"]?["answer"]?["answer_id"] == .string("ans-5f0c"))
        #expect(shown.json?["live_activity"]?["dismissed_at"] == .null)
        let events = fixture.agent("GET", "/v1/events?since=0")
        #expect(events.json?["events"]?[1]?["transition"] == .string("stop_requested"))
        let status = fixture.phone("GET", "/api/live-activity/status?request_id=\(id)")
        #expect(status.json?["live_activity"]?["answer"]?["answer"] == .string("stop"))

        let retry = Self.answer(&fixture, id, body)
        #expect(retry.status == 200)
        #expect(retry.text == result.text, "a retry is answered exactly as the first press")
        #expect(retry.change?.changed == false)
    }

    @Test func eachRefusalHasItsCode() throws {
        var fixture = try RouterFixture()
        let plain = fixture.start(#"{"task_title":"T"}"#)
        let other = fixture.start(#"{"task_title":"T","phone_id":"phone-2","can_stop":true}"#)
        let rows: [(String, String, Int, String)] = [
            (plain, #"{"answer":"stop","answer_id":"a1"}"#, 409, "not_stoppable"),
            (plain, #"{"answer":"done","answer_id":"a2"}"#, 409, "not_waiting"),
            (plain, #"{"answer":"dismiss","answer_id":"a3"}"#, 409, "not_ended"),
            (other, #"{"answer":"stop","answer_id":"a4","phone_id":"phone-1"}"#, 404, "not_found"),
            ("chat_nope", #"{"answer":"stop","answer_id":"a5"}"#, 404, "not_found"),
            ("bad%20id", #"{"answer":"stop","answer_id":"a6"}"#, 400, "invalid"),
            (plain, #"{"answer":"later","answer_id":"a7"}"#, 400, "invalid"),
            (plain, #"{"answer":"stop","answer_id":"a b"}"#, 400, "invalid"),
            (plain, "not json", 400, "invalid"),
        ]
        for (id, body, status, code) in rows {
            let result = Self.answer(&fixture, id, body)
            #expect(result.status == status, "\(body)")
            #expect(result.json?["error"]?["code"] == .string(code), "\(body): \(result.text)")
            #expect(result.effect == nil && result.change == nil)
        }
        _ = fixture.agent("POST", "/v1/tasks/\(plain)/end", body: #"{"status":"completed"}"#)
        let ended = Self.answer(&fixture, other, #"{"answer":"stop","answer_id":"a8","phone_id":"phone-2"}"#)
        #expect(ended.status == 200)
        _ = fixture.agent("POST", "/v1/tasks/\(other)/end", body: #"{"status":"canceled"}"#)
        let late = Self.answer(&fixture, other, #"{"answer":"stop","answer_id":"a9","phone_id":"phone-2"}"#)
        #expect(late.json?["error"]?["code"] == .string("task_ended"))
        let dismissed = Self.answer(&fixture, plain, #"{"answer":"dismiss","answer_id":"a10"}"#)
        #expect(dismissed.status == 200)
        #expect(dismissed.json?["task"]?["dismissed_at"] == .string(Timestamp.format(fixture.now)))
    }

    /// Done pressed on the first question after the task asked a second: 409 `stale_revision`, nothing recorded, the
    /// events carry each transition's revision; the same press with the revision shown now is taken.
    @Test func anAnswerForAnOlderQuestionIsStale() throws {
        var fixture = try RouterFixture()
        let handoff = #"{"phase":"waiting_user","current_action":"request_user_input"}"#
        let id = fixture.start(#"{"task_title":"Deploy"}"#)
        let first = fixture.agent("PATCH", "/v1/tasks/\(id)", body: handoff)
        let shown = Int(try #require(first.json?["live_activity"]?["revision"]?.number))
        _ = fixture.agent("PATCH", "/v1/tasks/\(id)", body: #"{"phase":"acting","current_action":"deploy"}"#)
        let second = fixture.agent("PATCH", "/v1/tasks/\(id)", body: handoff)
        let now = Int(try #require(second.json?["live_activity"]?["revision"]?.number))
        let events = fixture.phone("GET", "/api/live-activity/events?since=0")
        #expect(events.json?["events"]?[2]?["revision"]?.number == Double(now), "\(events.text)")
        let stale = Self.answer(&fixture, id, #"{"answer":"done","answer_id":"a1","revision":\#(shown)}"#)
        #expect(stale.status == 409)
        #expect(stale.json?["error"]?["code"] == .string("stale_revision"), "\(stale.text)")
        #expect(stale.effect == nil && stale.change == nil)
        let fresh = Self.answer(&fixture, id, #"{"answer":"done","answer_id":"a2","revision":\#(now)}"#)
        #expect(fresh.status == 200, "\(fresh.text)")
    }

    @Test func doneResolvesNeedsAppAndTheEventCarriesTheAnswer() throws {
        var fixture = try RouterFixture()
        let id = fixture.start(#"{"task_title":"T","status":"needs_app"}"#)
        let result = Self.answer(&fixture, id, #"{"answer":"done","answer_id":"a1"}"#)
        #expect(result.json?["task"]?["status"] == .string("running"))
        let events = fixture.phone("GET", "/api/live-activity/events?since=0")
        let last = events.json?["events"]?[2]
        #expect(last?["transition"] == .string("answered"))
        #expect(last?["answer"] == .string("done"))
    }

    @Test func otherMethodsAre405AndTheRouteIsOffWithLiveActivity() throws {
        var fixture = try RouterFixture()
        let id = fixture.start(#"{"task_title":"T","can_stop":true}"#)
        let get = fixture.phone("GET", "/api/live-activity/tasks/\(id)/answer")
        #expect(get.status == 405)
        #expect(get.response.headers.contains { $0.name == "Allow" && $0.value == "POST" })
        let form = fixture.phone(
            "POST", "/api/live-activity/tasks/\(id)/answer", headers: ["content-type": "text/plain"],
            body: #"{"answer":"stop","answer_id":"a1"}"#)
        #expect(form.status == 415)
        fixture.facts.liveActivityEnabled = false
        #expect(Self.answer(&fixture, id, #"{"answer":"stop","answer_id":"a1"}"#).status == 503)
    }
}
