import FoundationEssentials
import Testing
import WireFormat

@testable import AgentCLI

@Suite("events: the cursor through the board's transition ring")
struct EventsCursorTests {
    static func page(_ json: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
    }

    static let first = #"""
        {"status":"ok","epoch":4660,"generation":"4660-a","next":2,"truncated":false,"reset_required":false,
         "events":[{"id":1,"request_id":"chat_1","transition":"started","at":"2026-06-12T07:00:00Z"},
                   {"id":2,"request_id":"chat_1","transition":"foreground_recovery","at":"2026-06-12T07:00:01.5Z"}]}
        """#

    @Test func eachPagePrintsItsEventsAndMovesTheCursor() throws {
        var cursor = EventsCursor()
        #expect(cursor.request.path == "/v1/events?since=0")
        let page = try #require(cursor.read(try Self.page(Self.first), json: false))
        #expect(
            page.standardOutput == """
                2026-06-12T07:00:00Z  started              chat_1
                2026-06-12T07:00:01.5Z  foreground_recovery  chat_1

                """)
        #expect(page.standardError == "")
        #expect(page.eventCount == 2)
        #expect(cursor == EventsCursor(since: 2, generation: "4660-a"))
        #expect(cursor.request.path == "/v1/events?since=2&generation=4660-a")
        #expect(cursor.request.method == "GET")
    }

    @Test func withJSONEachEventIsOneObjectPerLine() throws {
        var cursor = EventsCursor()
        let page = try #require(cursor.read(try Self.page(Self.first), json: true))
        #expect(
            page.standardOutput
                == #"{"at":"2026-06-12T07:00:00Z","id":1,"request_id":"chat_1","transition":"started"}"# + "\n"
                + #"{"at":"2026-06-12T07:00:01.5Z","id":2,"request_id":"chat_1","transition":"foreground_recovery"}"#
                + "\n")
    }

    @Test func aResetOrALossIsSaidOnStderr() throws {
        var cursor = EventsCursor(since: 7, generation: "old")
        let reset = #"{"status":"ok","generation":"new","next":0,"truncated":false,"reset_required":true,"events":[]}"#
        let page = try #require(cursor.read(try Self.page(reset), json: false))
        #expect(page.standardOutput == "")
        #expect(page.standardError.contains("started over (generation new)"))
        #expect(cursor == EventsCursor(since: 0, generation: "new"))

        var fresh = EventsCursor()
        let firstContact = #"{"generation":"g","next":0,"reset_required":true,"events":[]}"#
        #expect(
            fresh.read(try Self.page(firstContact), json: false)?.standardError == "", "no cursor yet: nothing missed")
        let truncated = #"{"generation":"g","next":300,"truncated":true,"events":[]}"#
        #expect(
            fresh.read(try Self.page(truncated), json: false)?.standardError.contains("left the board's ring") == true)
    }

    @Test func oddEventsPrintDashesAndHostileTextIsEscaped() throws {
        var cursor = EventsCursor()
        let odd =
            #"{"generation":"g","next":3,"events":[{"id":3,"transition":"brand_new","request_id":"a\u001b[2Jb"}]}"#
        let page = try #require(cursor.read(try Self.page(odd), json: false))
        #expect(page.standardOutput == "-  brand_new            a\\u{1b}[2Jb\n")
    }

    @Test(arguments: [
        #"{"status":"ok"}"#, #"{"events":[],"next":1}"#, #"{"events":{},"next":1,"generation":"g"}"#, "[]",
    ])
    func aNonPageLeavesTheCursorAlone(json: String) throws {
        var cursor = EventsCursor(since: 5, generation: "g")
        #expect(cursor.read(try Self.page(json), json: false) == nil)
        #expect(cursor == EventsCursor(since: 5, generation: "g"))
    }
}
