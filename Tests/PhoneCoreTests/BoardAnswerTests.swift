import Testing
import WireFormat

@testable import PhoneCore

@Suite struct BoardAnswerTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    private let contractExample = """
        {"status":"ok","live_activity":{
          "request_id": "chat_1", "phone_id": "",
          "status": "running", "phase": "observing",
          "task_title": "Open Settings", "current_step": "Checking the current screen",
          "current_action": "observe_screen", "current_target": "", "current_app": "",
          "last_tool_name": "screenshot", "last_error": "",
          "progress": 0.21, "shows_progress": true, "can_stop": true, "requires_app": false,
          "started_at": "2026-06-12T07:00:00Z", "updated_at": "2026-06-12T07:00:02Z",
          "ended_at": null, "revision": 42
        }}
        """

    @Test func readsTheContractSnapshot() throws {
        #expect(try BoardAnswer.current(from: bytes(contractExample)) == .snapshot(Fixtures.running))
    }

    @Test func readsNotFound() throws {
        #expect(try BoardAnswer.current(from: bytes(#"{"status":"not_found"}"#)) == .notFound)
    }

    @Test func isPermissiveAboutEverythingButTheRequestID() throws {
        let text =
            #"{"status":"ok","extra":[1,2],"live_activity":{"request_id":"chat_2","status":"paused","#
            + #""phase":"dreaming","progress":"half","can_stop":1,"revision":-3,"future_field":{"a":1}}}"#
        let expected = SnapshotView(
            requestID: "chat_2", status: .unknown("paused"),
            phase: .unknown("dreaming"))
        #expect(try BoardAnswer.current(from: bytes(text)) == .snapshot(expected))
    }

    @Test(arguments: [
        ("not json", BoardAnswerError(kind: .notJSON, message: "not valid JSON")),
        ("[1,2]", BoardAnswerError(kind: .notJSON, message: "expected a JSON object")),
        (#"{"live_activity":{}}"#, BoardAnswerError(kind: .missingField, field: "status", message: "missing")),
        (#"{"status":7}"#, BoardAnswerError(kind: .wrongType, field: "status", message: "expected a string")),
        (#"{"status":"ok"}"#, BoardAnswerError(kind: .missingField, field: "live_activity", message: "missing")),
        (
            #"{"status":"ok","live_activity":{"status":"running"}}"#,
            BoardAnswerError(kind: .missingField, field: "live_activity.request_id", message: "missing")
        ),
        (
            #"{"status":"ok","live_activity":{"request_id":5}}"#,
            BoardAnswerError(kind: .wrongType, field: "live_activity.request_id", message: "expected a string")
        ),
        (
            #"{"status":"ok","live_activity":{"request_id":""}}"#,
            BoardAnswerError(
                kind: .invalidValue, field: "live_activity.request_id",
                message: "must be 1 to 128 characters from A-Z a-z 0-9 . _ : -")
        ),
        (
            #"{"status":"ok","live_activity":{"request_id":"chat_1\u001b[2J"}}"#,
            BoardAnswerError(
                kind: .invalidValue, field: "live_activity.request_id",
                message: "must be 1 to 128 characters from A-Z a-z 0-9 . _ : -")
        ),
        (
            #"{"status":"ok","live_activity":null}"#,
            BoardAnswerError(kind: .wrongType, field: "live_activity", message: "expected an object, got null")
        ),
        (
            #"{"status":"maybe"}"#,
            BoardAnswerError(kind: .unexpectedStatus, field: "status", message: "unexpected value \"maybe\"")
        ),
        (
            #"{"status":"error","error":{"code":"disabled","message":"live activity is off","field":"enabled"}}"#,
            BoardAnswerError(kind: .boardError, field: "enabled", message: "disabled: live activity is off")
        ),
    ])
    func malformedCurrentAnswersNameTheField(text: String, expected: BoardAnswerError) {
        #expect(throws: expected) { try BoardAnswer.current(from: bytes(text)) }
    }

    @Test func errorsDescribeTheirField() {
        #expect(
            BoardAnswerError(kind: .missingField, field: "events[2].id", message: "missing").description
                == "events[2].id: missing")
        #expect(BoardAnswerError(kind: .notJSON, message: "not valid JSON").description == "not valid JSON")
    }

    @Test func readsTheContractEventsAnswer() throws {
        let text =
            #"{"status":"ok","epoch":1234,"generation":"9f2c","events":[{"id":43,"request_id":"chat_1","#
            + #""transition":"handoff","at":"2026-06-12T07:00:02Z"},{"id":44,"request_id":"chat_1","#
            + #""transition":"teleported"}],"next":44,"truncated":false,"reset_required":false}"#
        #expect(
            try BoardAnswer.events(from: bytes(text))
                == EventsAnswer(
                    epoch: 1234, generation: "9f2c",
                    events: [
                        BoardEvent(
                            id: 43, requestID: "chat_1", transition: .known(.handoff), at: "2026-06-12T07:00:02Z"),
                        BoardEvent(id: 44, requestID: "chat_1", transition: .unknown("teleported")),
                    ], next: 44))
    }

    @Test func eventsFlagsDefaultToFalseAndANumericGenerationIsText() throws {
        let text = #"{"status":"ok","generation":17,"events":[],"reset_required":true}"#
        #expect(
            try BoardAnswer.events(from: bytes(text))
                == EventsAnswer(
                    epoch: nil, generation: "17", events: [], next: nil, truncated: false, resetRequired: true))
    }

    @Test(arguments: [
        (
            #"{"status":"ok","events":[{"request_id":"a","transition":"failed"}]}"#,
            BoardAnswerError(kind: .missingField, field: "events[0].id", message: "missing")
        ),
        (
            #"{"status":"ok","events":[{"id":1,"request_id":"a","transition":"failed"},"#
                + #"{"id":"2","request_id":"a","transition":"failed"}]}"#,
            BoardAnswerError(kind: .wrongType, field: "events[1].id", message: "expected an unsigned integer")
        ),
        (
            #"{"status":"ok","events":[{"id":1,"request_id":"a"}]}"#,
            BoardAnswerError(kind: .missingField, field: "events[0].transition", message: "missing")
        ),
        (
            #"{"status":"ok","events":{}}"#,
            BoardAnswerError(kind: .wrongType, field: "events", message: "expected an array")
        ),
        (
            #"{"status":"not_found"}"#,
            BoardAnswerError(kind: .unexpectedStatus, field: "status", message: "unexpected value \"not_found\"")
        ),
    ])
    func malformedEventsAnswersNameTheField(text: String, expected: BoardAnswerError) {
        #expect(throws: expected) { try BoardAnswer.events(from: bytes(text)) }
    }

    /// A request id the board itself would have refused from an agent (`IdentifierRule`) is not a board's:
    /// the answer is refused naming the entry, before the id can reach a terminal, a URL or the alert record.
    @Test(arguments: [
        "", "chat 1", "chat_1\\u001b[2J", "chat_1\\n<3>forged", "pay\\u202elanoitan", "chat_\\u0085",
        "../status", "chat?x=1", "é", String(repeating: "r", count: 129),
    ])
    func eventsWithAHostileRequestIDAreRefused(requestID: String) {
        let text =
            #"{"status":"ok","events":[{"id":1,"request_id":"chat_1","transition":"handoff"},"#
            + #"{"id":2,"request_id":"\#(requestID)","transition":"failed"}],"next":2}"#
        #expect(
            throws: BoardAnswerError(
                kind: .invalidValue, field: "events[1].request_id",
                message: "must be 1 to 128 characters from A-Z a-z 0-9 . _ : -")
        ) { try BoardAnswer.events(from: bytes(text)) }
    }

    @Test func requestIDsAtTheBoundsOfTheRuleAreRead() throws {
        let longest = String(repeating: "r", count: 128)
        let text =
            #"{"status":"ok","events":[{"id":1,"request_id":"\#(longest)","transition":"handoff"},"#
            + #"{"id":2,"request_id":"chat_1.2:3-x_Y","transition":"failed"}],"next":2}"#
        #expect(try BoardAnswer.events(from: bytes(text)).events.map(\.requestID) == [longest, "chat_1.2:3-x_Y"])
    }

    @Test func httpStatusesBecomeBoardProblems() {
        let refusal = bytes(#"{"status":"error","error":{"code":"forbidden","message":"peer not allowed"}}"#)
        #expect(BoardAnswer.current(status: 403, body: refusal) == .failure(.forbidden(message: "peer not allowed")))
        #expect(BoardAnswer.current(status: 403, body: []) == .failure(.forbidden(message: nil)))
        #expect(BoardAnswer.current(status: 500, body: bytes("oops")) == .failure(.httpStatus(500, message: nil)))
        #expect(
            BoardAnswer.events(
                status: 400,
                body: bytes(
                    #"{"status":"error","error":{"code":"bad_request","message":"since: not a number"}}"#))
                == .failure(.httpStatus(400, message: "since: not a number")))
        #expect(
            BoardAnswer.current(status: 200, body: bytes("{"))
                == .failure(
                    .malformed(
                        BoardAnswerError(kind: .notJSON, message: "not valid JSON"))))
        #expect(BoardAnswer.current(status: 200, body: bytes(#"{"status":"not_found"}"#)) == .success(.notFound))
    }

    @Test func problemsDescribeTheFix() {
        #expect(
            BoardProblem.forbidden(message: nil).description
                == "board answered 403 (forbidden): this host is not on the board's USB link")
        #expect(
            BoardProblem.unreachable(detail: "connection refused").description
                == "board unreachable: connection refused")
        #expect(BoardProblem.httpStatus(503, message: "starting").description == "board answered HTTP 503: starting")
        #expect(
            BoardProblem.malformed(BoardAnswerError(kind: .missingField, field: "events", message: "missing"))
                .description == "malformed answer from the board: events: missing")
        #expect(
            [
                BoardProblem.unreachable(detail: ""), .forbidden(message: nil), .httpStatus(500, message: nil),
                .malformed(BoardAnswerError(kind: .notJSON, message: "")),
            ].map(\.kind)
                == ["unreachable", "forbidden", "http_status", "malformed"])
    }
}
