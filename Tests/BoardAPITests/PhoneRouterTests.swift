import FoundationEssentials
import LiveActivity
import Testing

@testable import BoardAPI

@Suite struct PhoneRouterTests {
    static let json = ["content-type": "application/json"]

    @Test func currentIsNotFoundOnAnEmptyBoard() throws {
        var board = try RouterFixture()
        let result = board.phone("GET", "/api/live-activity/current?phone_id=p1")
        #expect(result.status == 200)
        #expect(result.text == #"{"status":"not_found"}"#)
        #expect(result.response.header("Content-Type") == "application/json")
        #expect(result.response.header("ETag") == "\"4660-1f2e3d4c5b6a7988-0\"")
        #expect(result.response.header("Access-Control-Allow-Origin") == nil)
    }

    @Test func currentFollowsThePhoneSelectionRule() throws {
        var board = try RouterFixture()
        let mine = board.start(#"{"task_title":"Mine","phone_id":"p1"}"#)
        board.now += 1
        let other = board.start(#"{"task_title":"Other","phone_id":"p2"}"#)
        #expect(
            board.phone("GET", "/api/live-activity/current?phone_id=p1").json?["live_activity"]?["request_id"]?.string
                == mine)
        #expect(
            board.phone("GET", "/api/live-activity/current?phone_id=p2").json?["live_activity"]?["request_id"]?.string
                == other)
        #expect(board.phone("GET", "/api/live-activity/current?phone_id=p3").text == #"{"status":"not_found"}"#)
        let answer = try #require(board.phone("GET", "/api/live-activity/current?phone_id=p1").json)
        #expect(answer["status"]?.string == "ok")
        #expect(answer["live_activity"]?["task_title"]?.string == "Mine")
        #expect(answer["live_activity"]?["ended_at"]?.isNull == true)
    }

    @Test func currentPutsAWaitingTaskFirstAndCountsTheOthersBesideItsFields() throws {
        var board = try RouterFixture()
        let asking = board.start(
            #"{"task_title":"Asking","phase":"waiting_user","current_action":"request_user_input"}"#)
        board.now += 1
        _ = board.start(#"{"task_title":"Busy"}"#)
        board.now += 1
        _ = board.start(#"{"task_title":"Also busy","phone_id":"p1"}"#)
        _ = board.start(#"{"task_title":"Not mine","phone_id":"p2","status":"needs_app"}"#)
        let answer = try #require(board.phone("GET", "/api/live-activity/current?phone_id=p1").json)
        #expect(answer["live_activity"]?["request_id"]?.string == asking)
        #expect(answer["live_activity"]?["others"]?["active"]?.number == 2)
        #expect(answer["live_activity"]?["others"]?["waiting"]?.number == 0)
        #expect(answer["live_activity"]?["dismissed_at"]?.isNull == true)
        #expect(answer["live_activity"]?["dismiss_after_seconds"]?.isNull == true)
        let theirs = try #require(board.phone("GET", "/api/live-activity/current?phone_id=p2").json)
        #expect(theirs["live_activity"]?["task_title"]?.string == "Not mine")
        #expect(theirs["live_activity"]?["others"]?["waiting"]?.number == 1)
        // The task's own answer carries no count: only /current says what else there is.
        let status = board.phone("GET", "/api/live-activity/status?request_id=\(asking)")
        #expect(status.json?["live_activity"]?["others"] == nil)
        #expect(status.json?["live_activity"]?["request_id"]?.string == asking)
    }

    @Test func anEndDismissedAtOnceLeavesTheCard() throws {
        var board = try RouterFixture()
        let first = board.start(#"{"task_title":"First"}"#)
        board.now += 1
        let second = board.start(#"{"task_title":"Second"}"#)
        #expect(board.agent("POST", "/v1/tasks/\(first)/end", body: #"{"status":"completed"}"#).status == 200)
        let ended = board.agent(
            "POST", "/v1/tasks/\(second)/end", body: #"{"status":"completed","dismiss_after_seconds":0}"#)
        #expect(ended.json?["live_activity"]?["dismiss_after_seconds"]?.number == 0)
        let current = board.phone("GET", "/api/live-activity/current?phone_id=p")
        #expect(current.json?["live_activity"]?["request_id"]?.string == first)
        let refused = board.agent(
            "POST", "/v1/tasks/\(first)/end", body: #"{"status":"completed","dismiss_after_seconds":90000}"#)
        #expect(refused.status == 400)
        #expect(refused.json?["error"]?["field"]?.string == "dismiss_after_seconds")
    }

    @Test func etagGivesNotModifiedUntilTheStoreChanges() throws {
        var board = try RouterFixture()
        let id = board.start(#"{"task_title":"T"}"#)
        let first = board.phone("GET", "/api/live-activity/current?phone_id=p")
        let tag = try #require(first.response.header("ETag"))
        let again = board.phone("GET", "/api/live-activity/current?phone_id=p", headers: ["If-None-Match": tag])
        #expect(again.status == 304)
        #expect(again.response.body.isEmpty)
        #expect(again.response.header("ETag") == tag)
        #expect(
            board.phone(
                "GET", "/api/live-activity/current?phone_id=p",
                headers: ["If-None-Match": "\"x\", W/\(tag)"]
            ).status == 304)
        _ = board.agent("PATCH", "/v1/tasks/\(id)", body: #"{"current_step":"next"}"#)
        let changed = board.phone("GET", "/api/live-activity/current?phone_id=p", headers: ["If-None-Match": tag])
        #expect(changed.status == 200)
        #expect(changed.response.header("ETag") != tag)
    }

    @Test func publishedBoardCarriesEveryTaskEncoded() throws {
        var board = try RouterFixture()
        let first = board.start(#"{"task_title":"T"}"#)
        let second = board.start(#"{"task_title":"U"}"#)
        let published = board.state.published(now: board.now, retention: board.facts.retention)
        #expect(Set(published.bodies.keys) == [first, second])
        let served = board.phone("GET", "/api/live-activity/status?request_id=\(first)").response.body
        #expect(published.bodies[first]?.body == served)
        _ = board.agent("POST", "/v1/tasks/\(first)/end", body: #"{"status":"completed"}"#)
        #expect(
            board.state.published(now: board.now, retention: board.facts.retention).bodies[first]?.revision
                == board.state.store.task(id: first)?.revision)
    }

    @Test func statusByRequestID() throws {
        var board = try RouterFixture()
        let id = board.start(#"{"task_title":"T"}"#)
        #expect(
            board.phone("GET", "/api/live-activity/status?request_id=\(id)").json?["live_activity"]?["request_id"]?
                .string == id)
        let unknown = board.phone("GET", "/api/live-activity/status?request_id=chat_nope")
        // 200, as an Aiden-profile board answers it: a 404 is a board without the path (docs/http-api.md).
        #expect(unknown.status == 200)
        #expect(unknown.text == #"{"status":"not_found"}"#)
        let missing = board.phone("GET", "/api/live-activity/status")
        #expect(missing.status == 400)
        #expect(missing.json?["error"]?["field"]?.string == "request_id")
        #expect(board.phone("GET", "/api/live-activity/status?request_id=a%20b").status == 400)
    }

    @Test func eventsReportTransitionsAfterTheCursor() throws {
        var board = try RouterFixture()
        let id = board.start(#"{"task_title":"T"}"#)
        _ = board.agent(
            "PATCH", "/v1/tasks/\(id)",
            body: #"{"phase":"waiting_user","current_action":"request_user_input"}"#)
        _ = board.agent("POST", "/v1/tasks/\(id)/end", body: #"{"status":"completed"}"#)
        let all = try #require(board.phone("GET", "/api/live-activity/events?since=0&generation=g1").json)
        #expect(all["status"]?.string == "ok")
        #expect(all["epoch"]?.number == 4660)
        #expect(all["generation"]?.string == "g1")
        #expect(all["events"]?.array?.compactMap { $0["transition"]?.string } == ["started", "handoff", "completed"])
        #expect(all["next"]?.number == 3)
        #expect(all["truncated"]?.bool == false)
        #expect(all["reset_required"]?.bool == false)
        let later = try #require(board.phone("GET", "/api/live-activity/events?since=2&generation=g1").json)
        #expect(later["events"]?.array?.count == 1)
        #expect(later["events"]?[0]?["request_id"]?.string == id)
        let stale = try #require(board.phone("GET", "/api/live-activity/events?since=2&generation=old").json)
        #expect(stale["reset_required"]?.bool == true)
        #expect(stale["events"]?.array?.count == 3)
    }

    @Test(arguments: ["-1", "abc", "1.5", "", "99999999999999999999999"])
    func malformedCursorsAreRejected(since: String) throws {
        var board = try RouterFixture()
        let result = board.phone("GET", "/api/live-activity/events?since=\(since)")
        #expect(result.status == 400)
        #expect(result.json?["error"]?["field"]?.string == "since")
    }

    @Test func unknownQueryParametersAreIgnored() throws {
        var board = try RouterFixture()
        #expect(board.phone("GET", "/api/live-activity/current?phone_id=p&utm=x&debug").status == 200)
    }

    @Test func malformedPhoneIDIsRejected() throws {
        var board = try RouterFixture()
        let result = board.phone("GET", "/api/live-activity/current?phone_id=<script>")
        #expect(result.status == 400)
        #expect(result.json?["error"]?["field"]?.string == "phone_id")
    }

    @Test func outsidersGet403OnEveryPathBeforeAnyHandler() throws {
        var board = try RouterFixture()
        for target in [
            "/api/live-activity/current", "/status", "/api/bluetooth/status", "/nope", "/api/phone/app-state",
        ] {
            let result = board.phone("GET", target, peer: "10.99.0.2")
            #expect(result.status == 403, "\(target)")
            #expect(result.json?["status"]?.string == "error")
            #expect(result.json?["error"]?["code"]?.string == "forbidden")
            #expect(result.denial == .peerOutsideAllowedSubnets(.v4(0x0A63_0002)))
        }
        let post = board.phone(
            "POST", "/api/phone/app-state", headers: Self.json, body: #"{"state":"foreground"}"#, peer: "10.99.0.2")
        #expect(post.status == 403)
        #expect(board.facts.phoneApp == nil, "a refused request must change nothing")
        let rebinding = board.phone("GET", "/status", headers: ["Host": "attacker.example:8080"])
        #expect(rebinding.status == 403)
        #expect(rebinding.denial == .foreignHost("attacker.example:8080"))
    }

    @Test func statusReportsHealth() throws {
        var board = try RouterFixture()
        _ = board.start(#"{"task_title":"T"}"#)
        let status = try #require(board.phone("GET", "/status").json)
        #expect(status["status"]?.string == "ok")
        #expect(status["version"]?.string == "0.1.0")
        #expect(status["instance_id"]?.string == "i-1")
        #expect(status["uptime_seconds"]?.number == 12)
        #expect(status["epoch"]?.number == 4660)
        #expect(status["live_activity"]?["enabled"]?.bool == true)
        #expect(status["live_activity"]?["retention_seconds"]?.number == 600)
        #expect(status["tasks"]?["active"]?.number == 1)
        #expect(status["wake"]?["transport"]?.string == "loopback")
        #expect(status["wake"]?["last_seq"]?.isNull == true)
        #expect(status["usb"]?["link"]?.string == "unknown")
        #expect(status["phone_app"]?.isNull == true)
        #expect(status["clock"]?["source"]?.string == "board")
        #expect(status["clock"]?["offset_seconds"]?.number == 0)
    }

    @Test func statusEtagFollowsContentNotTheStore() throws {
        var board = try RouterFixture()
        let tag = try #require(board.phone("GET", "/status").response.header("ETag"))
        #expect(board.phone("GET", "/status", headers: ["If-None-Match": tag]).status == 304)
        board.facts.uptimeSeconds += 1
        #expect(board.phone("GET", "/status", headers: ["If-None-Match": tag]).status == 200)
    }

    @Test func bluetoothStatusIsHonest() throws {
        var board = try RouterFixture()
        board.facts.bluetooth = BluetoothFacts(
            adapter: "hci0", adapterPresent: true, powered: true, bluezRunning: true,
            gattRegistered: true, advertising: false, wakeSubscriber: false)
        board.facts.wake = WakeFacts(
            transport: "bluez", lastSequence: 17, lastReason: "live_activity",
            lastAt: board.now, sent: 3)
        let status = try #require(board.phone("GET", "/api/bluetooth/status").json)
        #expect(status["gatt_registered"]?.bool == true)
        #expect(status["advertising"]?.bool == false)
        #expect(status["wake_subscriber"]?.bool == false)
        #expect(status["powered"]?.bool == true)
        #expect(status["last_wake_seq"]?.number == 17)
        #expect(status["last_wake_reason"]?.string == "live_activity")
        #expect(status["last_wake_at"]?.string?.hasSuffix("Z") == true)
        #expect(status["epoch"]?.number == 4660)
    }

    @Test func appStateIsRecorded() throws {
        var board = try RouterFixture()
        let result = board.phone(
            "POST", "/api/phone/app-state",
            headers: Self.json, body: #"{"state":"background","return_entry":"card","return_entry_available":true}"#)
        #expect(result.status == 200)
        #expect(board.facts.phoneApp?.state == .background)
        #expect(board.facts.phoneApp?.returnEntryAvailable == true)
        #expect(board.phone("GET", "/status").json?["phone_app"]?["state"]?.string == "background")
    }

    /// The bodies aiden-phone sends (PhoneCoreTests.BoardRequestTests has them byte for byte): both
    /// return-entry fields come back in `/status` as reported.
    @Test(arguments: [
        (
            #"{"state":"foreground","return_entry":"card","return_entry_available":true,"phone_id":"phone_1"}"#, "card",
            true
        ),
        (
            #"{"state":"foreground","return_entry":"notification","return_entry_available":true,"phone_id":"phone_1"}"#,
            "notification", true
        ),
        (#"{"state":"inactive","return_entry":"","return_entry_available":false,"phone_id":"phone_1"}"#, "", false),
    ])
    func theReturnEntryReachesStatus(body: String, entry: String, available: Bool) throws {
        var board = try RouterFixture()
        #expect(board.phone("POST", "/api/phone/app-state", headers: Self.json, body: body).status == 200)
        let app = try #require(board.phone("GET", "/status").json?["phone_app"])
        #expect(app["return_entry"]?.string == entry)
        #expect(app["return_entry_available"]?.bool == available)
        #expect(app["phone_id"]?.string == "phone_1")
    }

    @Test(arguments: [
        (#"{"state":"asleep"}"#, "state"), (#"{}"#, "state"), (#"{"state":1}"#, "state"),
        (#"{"state":"foreground","return_entry_available":"yes"}"#, "return_entry_available"),
        (#"{"state":"foreground","return_entry":5}"#, "return_entry"),
        // Only the entries a phone offers (docs/phone-client.md, "The return entry"): nothing for an agent to read.
        (#"{"state":"foreground","return_entry":"chat"}"#, "return_entry"),
        (#"{"state":"foreground","return_entry":"card\u202e"}"#, "return_entry"),
        (#"{"state":"foreground","return_entry":"\u202eCard"}"#, "return_entry"),
        (#"{"state":"foreground","phone_id":"a b"}"#, "phone_id"),
    ])
    func badAppStatesNameTheField(body: String, field: String) throws {
        var board = try RouterFixture()
        let result = board.phone("POST", "/api/phone/app-state", headers: Self.json, body: body)
        #expect(result.status == 400)
        #expect(result.json?["error"]?["field"]?.string == field)
        #expect(board.facts.phoneApp == nil)
    }

    @Test func thePhonesTimeIsTakenAndShown() throws {
        var board = try RouterFixture()
        let result = board.phone(
            "POST", "/api/phone/app-state",
            headers: Self.json, body: #"{"state":"foreground","phone_time":"2026-06-12T07:00:00.250+02:00"}"#)
        #expect(result.status == 200)
        #expect(board.facts.phoneApp?.phoneTime == Timestamp.parse("2026-06-12T05:00:00.250Z"))
        let app = try #require(board.phone("GET", "/status").json?["phone_app"])
        #expect(app["phone_time"]?.string == "2026-06-12T05:00:00.250Z")
        #expect(app["reported_at"]?.string == Timestamp.format(board.now))
        #expect(
            board.phone("POST", "/api/phone/app-state", headers: Self.json, body: #"{"state":"foreground"}"#).status
                == 200)
        #expect(board.phone("GET", "/status").json?["phone_app"]?["phone_time"]?.isNull == true)
    }

    /// The fixed range: from 2024-01-01, before 2100-01-01, whatever the board's clock (the fixture's is
    /// 2026-05-28); anything else that is not an RFC 3339 time is refused too.
    @Test(arguments: [
        #""2023-12-31T23:59:59Z""#, #""2100-01-01T00:00:00Z""#, #""9999-12-31T23:59:59.999Z""#, #""yesterday""#,
        #""2026-06-12 07:00:00""#,
        "1781247600", "true",
    ])
    func implausiblePhoneTimesAreRefused(value: String) throws {
        var board = try RouterFixture()
        let result = board.phone(
            "POST", "/api/phone/app-state", headers: Self.json, body: #"{"state":"foreground","phone_time":\#(value)}"#)
        #expect(result.status == 400)
        #expect(result.json?["error"]?["field"]?.string == "phone_time")
        #expect(result.json?["error"]?["message"]?.string?.contains("RFC 3339") == true)
        #expect(board.facts.phoneApp == nil)
    }

    @Test(arguments: [[], Array("[1]".utf8), Array("{".utf8), [0x7B, 0xFF, 0xFE, 0x7D]])
    func malformedAppStateBodies(body: [UInt8]) throws {
        var board = try RouterFixture()
        let result = board.phone("POST", "/api/phone/app-state", headers: Self.json, bodyBytes: body)
        #expect(result.status == 400)
        #expect(result.json?["error"]?["code"]?.string == "invalid")
    }

    @Test func unknownPathsAndMethods() throws {
        var board = try RouterFixture()
        let unknown = board.phone("GET", "/api/unknown")
        #expect(unknown.status == 404)
        #expect(unknown.json?["error"]?["message"]?.string == "no endpoint GET /api/unknown")
        let wrongMethod = board.phone("DELETE", "/api/live-activity/current")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.response.header("Allow") == "GET")
        #expect(board.phone("GET", "/api/phone/app-state").response.header("Allow") == "POST")
        // The ECM side never writes tasks.
        #expect(board.phone("POST", "/v1/tasks", body: #"{"task_title":"x"}"#).status == 404)
        #expect(board.state.store.count == 0)
    }

    @Test func disabledLiveActivityIsSaidPlainly() throws {
        var board = try RouterFixture()
        board.facts.liveActivityEnabled = false
        let result = board.phone("GET", "/api/live-activity/current")
        #expect(result.status == 503)
        #expect(result.json?["error"]?["code"]?.string == "disabled")
        #expect(board.phone("GET", "/status").json?["live_activity"]?["enabled"]?.bool == false)
    }
}
