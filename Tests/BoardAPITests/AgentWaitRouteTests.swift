import FoundationEssentials
import Testing

@testable import BoardAPI

/// The agent's long-polls on the router: what they take, what the board decides at once, and what it leaves to
/// the shell to hold (`RouteResult.wait`), decided again on each later state.
@Suite struct AgentWaitRouteTests {
    static let askForInput = #"{"phase":"waiting_user","current_action":"request_user_input"}"#

    @Test func onlyTheWaitsAreHeldBackFromTheCallingThread() {
        let cases: [(String, String, Bool)] = [
            ("GET", "/v1/tasks/chat_1/wait?for=stop", true),
            ("HEAD", "/v1/tasks/chat_1/wait", true),
            ("POST", "/v1/tasks/chat_1/wait", false),
            ("GET", "/v1/tasks/chat_1", false),
            ("GET", "/v1/tasks/chat_1/end", false),
            ("GET", "/v1/events?since=3&wait=30", true),
            ("GET", "/v1/events?since=3", false),
            ("GET", "/v1/tasks/wait", false),
        ]
        for (method, target, expected) in cases {
            #expect(
                AgentRouter.mayWait(RouterFixture.request(method, target, headers: [:], body: "")) == expected,
                "\(method) \(target)")
        }
    }

    @Test func badQueriesAreRefusedNamingTheParameter() throws {
        var board = try RouterFixture()
        let id = board.start(#"{"task_title":"T"}"#)
        let missing = board.agent("GET", "/v1/tasks/\(id)/wait")
        #expect(missing.status == 400)
        #expect(missing.json?["error"]?["field"]?.string == "for")
        #expect(missing.text.contains("one of stop, answer, end"))
        let unknown = board.agent("GET", "/v1/tasks/\(id)/wait?for=done")
        #expect(unknown.status == 400)
        #expect(unknown.json?["error"]?["field"]?.string == "for")
        for bad in ["61", "-1", "1.5", "", "soon"] {
            let result = board.agent("GET", "/v1/tasks/\(id)/wait?for=stop&timeout=\(bad)")
            #expect(result.status == 400, "timeout=\(bad)")
            #expect(result.json?["error"]?["field"]?.string == "timeout")
            #expect(result.wait == nil)
        }
        let events = board.agent("GET", "/v1/events?since=0&wait=120")
        #expect(events.status == 400)
        #expect(events.json?["error"]?["field"]?.string == "wait")
        let post = board.agent("POST", "/v1/tasks/\(id)/wait?for=stop")
        #expect(post.status == 405)
        #expect(post.response.header("Allow") == "GET")
        let nobody = board.agent("GET", "/v1/tasks/chat_nobody/wait?for=stop")
        #expect(nobody.status == 404)
        #expect(nobody.wait == nil)
    }

    @Test func aWaitIsHeldUntilTheAnswerIsOnTheTask() throws {
        var board = try RouterFixture()
        let id = board.start(#"{"task_title":"Pay","request_id":"chat_w"}"#)
        _ = board.agent("PATCH", "/v1/tasks/\(id)", body: Self.askForInput)
        let held = board.agent("GET", "/v1/tasks/\(id)/wait?for=answer&timeout=20")
        let wait = try #require(held.wait, "nothing to answer yet: the shell holds it")
        #expect(wait.timeout == .seconds(20))
        #expect(held.json?["outcome"]?.string == "timeout", "what to answer should the shell not hold it")
        #expect(wait.answer(on: &board.state) == nil)

        let answered = board.phone(
            "POST", "/api/live-activity/tasks/\(id)/answer", headers: ["content-type": "application/json"],
            body: #"{"answer":"done","answer_id":"ans-1","phone_id":"phone-1"}"#)
        #expect(answered.status == 200, "\(answered.text)")
        let response = try #require(wait.answer(on: &board.state))
        #expect(response.status == 200)
        let json = try #require(RouteResult(response: response).json)
        #expect(json["status"]?.string == "ok")
        #expect(json["for"]?.string == "answer")
        #expect(json["outcome"]?.string == "came")
        #expect(json["live_activity"]?["answer"]?["answer"]?.string == "done")
        #expect(json["live_activity"]?["answer"]?["answer_id"]?.string == "ans-1")

        let again = board.agent("GET", "/v1/tasks/\(id)/wait?for=answer")
        #expect(again.wait == nil, "an answer already recorded counts at once")
        #expect(again.json?["outcome"]?.string == "came")
    }

    @Test func eachTargetDecidesOnTheTask() throws {
        var board = try RouterFixture()
        let id = board.start(#"{"task_title":"Build","request_id":"chat_s","can_stop":true}"#)
        #expect(board.agent("GET", "/v1/tasks/\(id)/wait?for=stop&timeout=0").json?["outcome"]?.string == "timeout")
        #expect(board.agent("GET", "/v1/tasks/\(id)/wait?for=stop&timeout=0").wait == nil, "0: answered at once")
        let stopWait = try #require(board.agent("GET", "/v1/tasks/\(id)/wait?for=stop").wait)
        #expect(stopWait.timeout == .seconds(30), "the default")
        let endWait = try #require(board.agent("GET", "/v1/tasks/\(id)/wait?for=end&timeout=60").wait)
        let answerWait = try #require(board.agent("GET", "/v1/tasks/\(id)/wait?for=answer&timeout=5").wait)

        _ = board.phone(
            "POST", "/api/live-activity/tasks/\(id)/answer", headers: ["content-type": "application/json"],
            body: #"{"answer":"stop","answer_id":"ans-9"}"#)
        let stopped = try #require(stopWait.answer(on: &board.state).flatMap { RouteResult(response: $0).json })
        #expect(stopped["outcome"]?.string == "came")
        #expect(endWait.answer(on: &board.state) == nil, "a stop is not the end")
        #expect(answerWait.answer(on: &board.state) == nil, "a stop is not an answer")

        _ = board.agent("POST", "/v1/tasks/\(id)/end", body: #"{"status":"canceled","last_error":"stopped"}"#)
        let ended = try #require(endWait.answer(on: &board.state).flatMap { RouteResult(response: $0).json })
        #expect(ended["outcome"]?.string == "came")
        #expect(ended["live_activity"]?["status"]?.string == "canceled")
        let endedFirst = try #require(answerWait.answer(on: &board.state).flatMap { RouteResult(response: $0).json })
        #expect(endedFirst["outcome"]?.string == "ended", "an answer cannot come any more")
        let timedOut = try #require(RouteResult(response: answerWait.timedOut(on: &board.state)).json)
        #expect(timedOut["outcome"]?.string == "ended", "decided before it times out")
        // The end cleared the stop from the task; a wait that asks only now still hears it, from the ring.
        #expect(board.state.store.task(id: id)?.answer == nil)
        let late = board.agent("GET", "/v1/tasks/\(id)/wait?for=stop")
        #expect(late.wait == nil)
        #expect(late.json?["outcome"]?.string == "came")
    }

    @Test func anEndedTaskAnswersFromTheRingWhatStoodAtItsEnd() throws {
        var board = try RouterFixture()
        let plain = board.start(#"{"task_title":"Plain","request_id":"chat_plain","can_stop":true}"#)
        _ = board.agent("POST", "/v1/tasks/\(plain)/end", body: #"{"status":"completed"}"#)
        for target in ["stop", "answer"] {
            #expect(
                board.agent("GET", "/v1/tasks/\(plain)/wait?for=\(target)").json?["outcome"]?.string == "ended",
                "nothing recorded: \(target)")
        }
        let asked = board.start(#"{"task_title":"Asked","request_id":"chat_asked"}"#)
        _ = board.agent("PATCH", "/v1/tasks/\(asked)", body: Self.askForInput)
        _ = board.phone(
            "POST", "/api/live-activity/tasks/\(asked)/answer", headers: ["content-type": "application/json"],
            body: #"{"answer":"done","answer_id":"ans-1"}"#)
        _ = board.agent("POST", "/v1/tasks/\(asked)/end", body: #"{"status":"completed"}"#)
        #expect(
            board.agent("GET", "/v1/tasks/\(asked)/wait?for=answer").json?["outcome"]?.string == "came",
            "answered, then ended: the ring says it came")
        let again = board.start(#"{"task_title":"Asked twice","request_id":"chat_twice"}"#)
        _ = board.agent("PATCH", "/v1/tasks/\(again)", body: Self.askForInput)
        _ = board.phone(
            "POST", "/api/live-activity/tasks/\(again)/answer", headers: ["content-type": "application/json"],
            body: #"{"answer":"done","answer_id":"ans-2"}"#)
        _ = board.agent("PATCH", "/v1/tasks/\(again)", body: #"{"phase":"acting"}"#)
        _ = board.agent("PATCH", "/v1/tasks/\(again)", body: Self.askForInput)
        _ = board.agent("POST", "/v1/tasks/\(again)/end", body: #"{"status":"completed"}"#)
        #expect(
            board.agent("GET", "/v1/tasks/\(again)/wait?for=answer").json?["outcome"]?.string == "ended",
            "the answer was cleared by the next request for input, before the end")
    }

    @Test func aStopIsHeardHoweverManyEventsTheRingDropped() throws {
        var board = try RouterFixture()
        let id = board.start(#"{"task_title":"Long","request_id":"chat_l","can_stop":true}"#)
        _ = board.phone(
            "POST", "/api/live-activity/tasks/\(id)/answer", headers: ["content-type": "application/json"],
            body: #"{"answer":"stop","answer_id":"ans-1"}"#)
        // Other tasks' transitions push the stop out of the ring.
        for index in 0..<300 {
            let other = board.start(#"{"task_title":"Other \#(index)"}"#)
            _ = board.agent("POST", "/v1/tasks/\(other)/end", body: #"{"status":"completed"}"#)
        }
        #expect(!board.agent("GET", "/v1/events?since=0").text.contains(#""request_id":"chat_l""#))
        let result = board.agent("GET", "/v1/tasks/\(id)/wait?for=stop")
        #expect(result.wait == nil)
        #expect(result.json?["outcome"]?.string == "came")
    }

    @Test func anEventsWaitIsHeldUntilAnEventComesAfterTheCursor() throws {
        var board = try RouterFixture()
        let id = board.start(#"{"task_title":"T"}"#)
        let next = Int(try #require(board.agent("GET", "/v1/events?since=0").json?["next"]?.number))
        #expect(board.agent("GET", "/v1/events?since=0&wait=10").wait == nil, "events after the cursor: at once")
        let held = board.agent("GET", "/v1/events?since=\(next)&generation=g1&wait=10")
        let wait = try #require(held.wait)
        #expect(held.json?["events"]?.array?.isEmpty == true)
        #expect(wait.answer(on: &board.state) == nil)
        _ = board.agent("POST", "/v1/tasks/\(id)/end", body: #"{"status":"completed"}"#)
        let page = try #require(wait.answer(on: &board.state).flatMap { RouteResult(response: $0).json })
        #expect(page["events"]?.array?.first?["transition"]?.string == "completed")
        #expect(page["next"]?.number == Double(next + 1))
        let otherGeneration = board.agent("GET", "/v1/events?since=\(next)&generation=g0&wait=10")
        #expect(otherGeneration.wait == nil, "a reset is news too")
        #expect(otherGeneration.json?["reset_required"]?.bool == true)
    }
}
