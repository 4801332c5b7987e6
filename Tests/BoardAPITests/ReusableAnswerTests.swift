import FoundationEssentials
import Testing

@testable import BoardAPI

/// Which answers the server may build once and send again (`HTTPResponse.reusable`): a publication's `/current`
/// and its 304, never an answer computed for one request.
@Suite struct ReusableAnswerTests {
    @Test func currentAndItsNotModifiedAreReusableAndEqualAcrossRequests() throws {
        var board = try RouterFixture()
        _ = board.start(#"{"task_title":"Open Settings"}"#)
        let first = board.phone("GET", "/api/live-activity/current?phone_id=p1").response
        let second = board.phone("GET", "/api/live-activity/current?phone_id=p1").response
        #expect(first.status == 200 && first.reusable)
        #expect(first == second, "an equal value is what lets the server send the one it built")
        let etag = try #require(first.header("ETag"))
        let unchanged = board.phone("GET", "/api/live-activity/current", headers: ["If-None-Match": etag]).response
        #expect(unchanged.status == 304 && unchanged.reusable)
    }

    @Test func answersComputedPerRequestAreNotReusable() throws {
        var board = try RouterFixture()
        let id = board.start(#"{"task_title":"Open Settings"}"#)
        #expect(!board.phone("GET", "/api/live-activity/events").response.reusable)
        #expect(!board.phone("GET", "/api/live-activity/status?request_id=\(id)").response.reusable)
        #expect(!board.phone("GET", "/status").response.reusable)
        #expect(!board.phone("POST", "/api/live-activity/current").response.reusable, "a 405")
        #expect(!board.phone("GET", "/api/live-activity/current", headers: ["Host": "evil.example"]).response.reusable)
    }

    /// A publication's `/current` and its 304 hold until the next publication (`HTTPResponse.validity`), so the
    /// server may send either again for the same request; not while an ended task is shown, whose leaving the card
    /// by the clock alone would change the answer without a publication.
    @Test func currentHoldsUntilTheNextPublicationUnlessAnEndedTaskIsShown() throws {
        var board = try RouterFixture()
        let id = board.start(#"{"task_title":"Open Settings"}"#)
        let first = board.phone("GET", "/api/live-activity/current?phone_id=p1").response
        let validity = try #require(first.validity)
        #expect(validity.holds)
        let etag = try #require(first.header("ETag"))
        let unchanged = board.phone("GET", "/api/live-activity/current", headers: ["If-None-Match": etag]).response
        #expect(unchanged.status == 304 && unchanged.validity?.holds == true)
        validity.end()
        #expect(!validity.holds, "ended once, it holds no more (the engine ends it: WakeFollowsPublicationTests)")

        #expect(board.agent("POST", "/v1/tasks/\(id)/end", body: #"{"status":"completed"}"#).status == 200)
        let ended = board.phone("GET", "/api/live-activity/current?phone_id=p1").response
        let shown = String(decoding: ended.body, as: UTF8.self)
        #expect(ended.status == 200 && shown.contains("Open Settings"), "still on the card")
        #expect(ended.reusable && ended.validity == nil, "it leaves the card when its time runs out, unpublished")

        board.now = board.now.addingTimeInterval(601)
        let gone = board.phone("GET", "/api/live-activity/current?phone_id=p1").response
        #expect(gone.validity?.holds == true, "nothing ended is shown any more: it holds again")
    }

    @Test func answersThatMayDifferNextTimeDoNotHold() throws {
        var board = try RouterFixture()
        let id = board.start(#"{"task_title":"Open Settings"}"#)
        #expect(board.phone("GET", "/api/live-activity/events").response.validity == nil)
        #expect(board.phone("GET", "/api/live-activity/status?request_id=\(id)").response.validity == nil)
        #expect(board.phone("GET", "/status").response.validity == nil)
        #expect(board.phone("POST", "/api/live-activity/current").response.validity == nil, "a 405")
        #expect(
            board.phone("GET", "/api/live-activity/current", headers: ["Host": "evil.example"]).response.validity
                == nil)
    }

    @Test func headerLookupIgnoresCaseOnBothSides() {
        let request = HTTPRequest(
            method: "GET", path: "/", headers: ["If-None-Match": "\"1\"", "host": "192.168.42.1", "X-Ä": "a"])
        #expect(request.header("if-none-match") == "\"1\"")
        #expect(request.header("IF-NONE-MATCH") == "\"1\"")
        #expect(request.header("Host") == "192.168.42.1")
        #expect(request.header("x-ä") == "a" && request.header("X-Ä") == "a")
        #expect(request.headers.keys.sorted() == ["host", "if-none-match", "x-ä"])
    }
}
