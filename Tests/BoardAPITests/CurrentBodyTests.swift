import FoundationEssentials
import LiveActivity
import NetworkAddress
import Testing
import WireFormat

@testable import BoardAPI

/// `/api/live-activity/current` is encoded when the board is published, not per request: what it serves must be,
/// byte for byte, what encoding the phone's selection afresh gives, in every case of the selection rule, and
/// `others` must be in it whatever the order of the keys.
@Suite struct CurrentBodyTests {
    static let phones = ["", "p1", "p2", "p3"]

    /// The reference, built without the body written by hand (`JSONBody.liveActivity`): the snapshot's own JSON as
    /// a value, `others` added as a member, the envelope around it, encoded with the board's encoder (sorted keys).
    static func freshBody(_ store: TaskStore, phone: String, now: Date, retention: Duration) throws -> [UInt8] {
        let selection = store.selection(forPhone: phone, now: now, retention: retention)
        guard let snapshot = selection.current else { return Array(#"{"status":"not_found"}"#.utf8) }
        let encoder = LiveActivityJSON.makeEncoder()
        guard case var .object(fields) = try JSONDecoder().decode(JSONValue.self, from: encoder.encode(snapshot))
        else { throw CurrentBodyFailure.notAnObject }
        #expect(fields["others"] == nil)
        fields["others"] = .object([
            "active": JSONValue(UInt64(selection.others.active)),
            "waiting": JSONValue(UInt64(selection.others.waiting)),
        ])
        return Array(try encoder.encode(JSONValue.object(["status": "ok", "live_activity": .object(fields)])))
    }

    /// Every phone's served body against the fresh encoding, on the publication the fixture makes now.
    static func expectServedIsFresh(_ board: inout RouterFixture, _ comment: Comment) throws {
        for phone in phones {
            let served = board.phone("GET", "/api/live-activity/current?phone_id=\(phone)")
            #expect(served.status == 200)
            let fresh = try freshBody(board.state.store, phone: phone, now: board.now, retention: board.facts.retention)
            #expect(
                served.text == String(decoding: fresh, as: UTF8.self), "\(comment), phone \"\(phone)\"")
        }
    }

    @Test func everySelectionCaseServesTheFreshEncoding() throws {
        var board = try RouterFixture()
        try Self.expectServedIsFresh(&board, "empty board")
        let any = board.start(#"{"task_title":"For any phone"}"#)
        try Self.expectServedIsFresh(&board, "one task for any phone")
        board.now += 1
        let mine = board.start(#"{"task_title":"Mine","phone_id":"p1","progress":0.25,"shows_progress":true}"#)
        try Self.expectServedIsFresh(&board, "a task for p1 beside it")
        board.now += 1
        _ = board.start(#"{"task_title":"Theirs","phone_id":"p2","status":"needs_app"}"#)
        try Self.expectServedIsFresh(&board, "p2's task waits for the app")
        board.now += 1
        let asking = board.start(
            #"{"task_title":"Asking","phase":"waiting_user","current_action":"request_user_input"}"#)
        try Self.expectServedIsFresh(&board, "a handoff for any phone")
        // Stale: no news for longer than stale_after_seconds.
        board.now += 400
        _ = board.state.store.sweepStale(now: board.now)
        #expect(board.state.store.task(id: mine)?.staleSince != nil)
        try Self.expectServedIsFresh(&board, "every task stale")
        _ = board.agent("PATCH", "/v1/tasks/\(mine)", body: #"{"current_step":"news"}"#)
        try Self.expectServedIsFresh(&board, "p1's task has news again")
        // Ended: shown, dismissed by the person, and ended with no time on the card.
        #expect(board.agent("POST", "/v1/tasks/\(asking)/end", body: #"{"status":"completed"}"#).status == 200)
        try Self.expectServedIsFresh(&board, "the handoff ended")
        #expect(board.agent("POST", "/v1/tasks/\(mine)/end", body: #"{"status":"failed"}"#).status == 200)
        try Self.expectServedIsFresh(&board, "p1's task ended")
        let dismissed = board.phone(
            "POST", "/api/live-activity/tasks/\(mine)/answer", headers: ["Content-Type": "application/json"],
            body: #"{"answer":"dismiss","answer_id":"a1","phone_id":"p1"}"#)
        #expect(dismissed.status == 200)
        try Self.expectServedIsFresh(&board, "p1 dismissed its ended task")
        #expect(
            board.agent("POST", "/v1/tasks/\(any)/end", body: #"{"status":"completed","dismiss_after_seconds":0}"#)
                .status == 200)
        try Self.expectServedIsFresh(&board, "the task for any phone ended, gone at once")
    }

    @Test func othersIsInTheBodyWhateverTheKeyOrder() throws {
        var board = try RouterFixture()
        _ = board.start(#"{"task_title":"One","phone_id":"p1"}"#)
        _ = board.start(#"{"task_title":"Two"}"#)
        let served = board.phone("GET", "/api/live-activity/current?phone_id=p1")
        let others = try #require(served.json?["live_activity"]?["others"])
        #expect(others["active"]?.number == 1 && others["waiting"]?.number == 0)
        // Sorted among the snapshot's members like every other key (docs/protocol.md §4.1).
        let text = served.text
        let othersAt = try #require(text.range(of: #""others":"#)).lowerBound
        #expect(try #require(text.range(of: #""last_tool_name":"#)).lowerBound < othersAt)
        #expect(othersAt < (try #require(text.range(of: #""phase":"#)).lowerBound))
    }

    @Test func aRequestReadsThePublishedBodyForItsPhone() throws {
        var board = try RouterFixture()
        _ = board.start(#"{"task_title":"Mine","phone_id":"p1"}"#)
        _ = board.start(#"{"task_title":"Any"}"#)
        let published = board.state.published(now: board.now, instant: .seconds(50), retention: board.facts.retention)
        let held = try #require(
            published.current.answer(
                forPhone: "p1", now: board.now, instant: .seconds(51), retention: board.facts.retention))
        #expect(
            held.body == (try Self.freshBody(board.state.store, phone: "p1", now: board.now, retention: .seconds(600))))
        let stranger = try #require(
            published.current.answer(
                forPhone: "someone-else", now: board.now, instant: .seconds(51), retention: board.facts.retention))
        #expect(stranger.choice == published.current.anyone.choice)
        #expect(published.current.byPhone.keys.sorted() == ["p1"])
        // Another retention than the one published with: not the published answer.
        #expect(
            published.current.answer(forPhone: "p1", now: board.now, instant: .seconds(51), retention: .seconds(5))
                == nil)
        // The next publication with nothing changed reuses the bytes it encoded.
        let again = board.state.published(now: board.now, instant: .seconds(52), retention: board.facts.retention)
        #expect(again.current.byPhone["p1"]?.body == held.body)
    }

    @Test func anEndedTaskWhoseTimeRanOutSincePublicationIsNotServed() throws {
        var board = try RouterFixture()
        let first = board.start(#"{"task_title":"First"}"#)
        board.now += 1
        let second = board.start(#"{"task_title":"Second"}"#)
        #expect(board.agent("POST", "/v1/tasks/\(first)/end", body: #"{"status":"completed"}"#).status == 200)
        let ended = board.agent(
            "POST", "/v1/tasks/\(second)/end", body: #"{"status":"completed","dismiss_after_seconds":5}"#)
        #expect(ended.status == 200)
        let publishedAt = board.now
        board.state.store.anchorClocks(now: publishedAt, instant: .seconds(100))
        let published = board.state.published(now: publishedAt, instant: .seconds(100), retention: .seconds(600))
        let router = PhoneRouter(policy: board.policy, liveActivityEnabled: true, retention: .seconds(600))
        func served(after seconds: Int64) -> String {
            var request = RouterFixture.request(
                "GET", "/api/live-activity/current?phone_id=p", headers: ["host": "192.168.42.1:8080"], body: "")
            request.peer = .ip(IPAddress(v4: 192, 168, 42, 2))
            request.localAddress = IPAddress(v4: 192, 168, 42, 1)
            let result = router.handle(
                request, board: published, facts: board.facts, now: publishedAt + Double(seconds),
                instant: .seconds(100 + seconds))
            return result.json?["live_activity"]?["request_id"]?.string ?? result.text
        }
        // The second ended last, so it is first in line, until its 5 s are over; then the first, from the same
        // publication, before the writer prunes and publishes anew.
        #expect(served(after: 4) == second)
        #expect(
            published.current.answer(
                forPhone: "p", now: publishedAt + 4, instant: .seconds(104), retention: .seconds(600)) != nil)
        #expect(served(after: 5) == first)
        #expect(
            published.current.answer(
                forPhone: "p", now: publishedAt + 5, instant: .seconds(105), retention: .seconds(600)) == nil)
        #expect(served(after: 601) == #"{"status":"not_found"}"#)
    }
}

enum CurrentBodyFailure: Error {
    case notAnObject
}
