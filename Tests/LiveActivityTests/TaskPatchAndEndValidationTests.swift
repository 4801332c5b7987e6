import FoundationEssentials
import Testing

@testable import LiveActivity

@Suite struct TaskPatchValidationTests {
    static let rejections: [Rejection] = [
        Rejection(
            #"{"status":"completed"}"#, "status",
            #"must be one of running, needs_app, got "completed" (a task ends through end)"#),
        Rejection(#"{"status":"paused"}"#, "status", #"unknown status "paused"; must be one of running, needs_app"#),
        Rejection(#"{"task_title":""}"#, "task_title", "must not be empty"),
        Rejection(
            #"{"phone_id":"a b"}"#, "phone_id",
            #"must be at most 128 characters from A-Z a-z 0-9 . _ : -, got "a b""#),
        Rejection(#"{"current_step":"\#(text("x", 501))"}"#, "current_step", "must be at most 500 characters, got 501"),
        Rejection(
            #"{"current_action":"tap\u2067"}"#, "current_action",
            "must not contain bidi control characters, found U+2067 (RIGHT-TO-LEFT ISOLATE)"),
        Rejection(
            #"{"last_tool_name":"\u009d"}"#, "last_tool_name", "must not contain control characters, found U+009D"),
        Rejection(#"{"progress":1.0000001}"#, "progress", "must be a number between 0 and 1, got 1.0000001"),
        Rejection(#"{"tool_status":"\#(text("x", 201))"}"#, "tool_status", "must be at most 200 characters, got 201"),
        Rejection(
            #"{"tool_status":"Reading\u202e"}"#, "tool_status",
            "must not contain bidi control characters, found U+202E (RIGHT-TO-LEFT OVERRIDE)"),
        Rejection(#"{"tool_status":"a\u001bb"}"#, "tool_status", "must not contain control characters, found U+001B"),
        Rejection(#"{"locale":"en_US"}"#, "locale", LanguageTag.expectation + ", found U+005F"),
        Rejection(#"{"locale":"e"}"#, "locale", LanguageTag.expectation + #", got "e""#),
        Rejection(#"{"locale":"en-"}"#, "locale", LanguageTag.expectation + #", got "en-""#),
        Rejection(#"{"locale":"en-\u202eSU"}"#, "locale", LanguageTag.expectation + ", found U+202E"),
        Rejection(
            #"{"locale":"en-\#(String(repeating: "a1b2c3d4-", count: 4))x"}"#, "locale",
            LanguageTag.expectation + #", got "en-a1b2c3d4-a1b2c3d4-a1b2c3d4-a1b2c3d4-x""#),
        Rejection(#"{"locale":7}"#, "locale", "must be a string, got 7"),
        Rejection(#"{"expected_revision":-1}"#, "expected_revision", "must be a non-negative integer, got -1"),
        Rejection(#"{"expected_revision":1.5}"#, "expected_revision", "must be a non-negative integer, got 1.5"),
        Rejection(#"{"expected_revision":"3"}"#, "expected_revision", #"must be a non-negative integer, got "3""#),
        Rejection(
            #"{"expected_revision":18446744073709551616}"#, "expected_revision",
            "must be a non-negative integer, got 1.8446744073709552e+19"),
        Rejection(#"{"can_stop":"false"}"#, "can_stop", #"must be true or false, got "false""#),
        Rejection("[]", nil, "body must be a JSON object"),
        Rejection("", nil, "body is empty; expected a JSON object"),
    ]

    @Test(arguments: rejections)
    func rejectsNamingTheField(_ rejection: Rejection) {
        let error = validationError { _ = try TaskPatch.decode(from: Array(rejection.body.utf8)) }
        #expect(error == TaskValidationError(field: rejection.field, message: rejection.message))
    }

    @Test func storeOwnedKeysAreIgnored() throws {
        let body = #"{"request_id":"other","revision":9,"started_at":"x","updated_at":1,"ended_at":null}"#
        #expect(try TaskPatch.decode(from: Data(body.utf8)) == TaskPatch())
    }

    @Test func decodesEveryMember() throws {
        let body = """
            {"phone_id":"","status":"running","phase":"verifying","task_title":"New","current_step":"s",
             "current_action":"a","current_target":"t","current_app":"app","last_tool_name":"tool",
             "last_error":"","progress":1,"shows_progress":true,"can_stop":false,"requires_app":false,
             "expected_revision":18446744073709551615}
            """
        let patch = try TaskPatch.decode(from: Data(body.utf8))
        #expect(
            patch
                == TaskPatch(
                    phoneID: "", status: .running, phase: .verifying, taskTitle: "New", currentStep: "s",
                    currentAction: "a", currentTarget: "t", currentApp: "app", lastToolName: "tool", lastError: "",
                    progress: 1, showsProgress: true, canStop: false, requiresApp: false,
                    expectedRevision: .max))
        let encoded = try LiveActivityJSON.makeEncoder().encode(patch)
        #expect(try TaskPatch.decode(from: encoded) == patch)
    }

    @Test func patchesBuiltInCodeMeetTheSameRules() {
        #expect(validationError { try TaskPatch(progress: -.infinity).validate() }?.field == "progress")
        #expect(validationError { try TaskPatch(status: .canceled).validate() }?.field == "status")
        #expect(validationError { try TaskPatch(currentApp: text("a", 201)).validate() }?.field == "current_app")
        #expect(validationError { try TaskPatch(currentApp: text("a", 200)).validate() } == nil)
    }
}

@Suite struct TaskEndValidationTests {
    static let rejections: [Rejection] = [
        Rejection("{}", "status", "is required (one of completed, failed, canceled)"),
        Rejection(#"{"status":null}"#, "status", "is required (one of completed, failed, canceled)"),
        Rejection(#"{"status":"running"}"#, "status", #"must be one of completed, failed, canceled, got "running""#),
        Rejection(
            #"{"status":"done"}"#, "status",
            #"unknown status "done"; must be one of completed, failed, canceled"#),
        Rejection(#"{"status":"failed","last_error":7}"#, "last_error", "must be a string, got 7"),
        Rejection(
            #"{"status":"failed","last_error":"\#(text("e", 1001))"}"#, "last_error",
            "must be at most 1000 characters, got 1001"),
        Rejection(
            #"{"status":"failed","last_error":"see \u202ecod.exe"}"#, "last_error",
            "must not contain bidi control characters, found U+202E (RIGHT-TO-LEFT OVERRIDE)"),
        Rejection(
            #"{"status":"failed","expected_revision":true}"#, "expected_revision",
            "must be a non-negative integer, got true"),
        Rejection("{", nil, "body is not valid JSON"),
        Rejection(
            #"{"status":"completed","dismiss_after_seconds":86401}"#, "dismiss_after_seconds",
            "must be a whole number of seconds from 0 to 86400, got 86401"),
        Rejection(
            #"{"status":"completed","dismiss_after_seconds":-1}"#, "dismiss_after_seconds",
            "must be a whole number of seconds from 0 to 86400, got -1"),
        Rejection(
            #"{"status":"completed","dismiss_after_seconds":"30"}"#, "dismiss_after_seconds",
            #"must be a whole number of seconds from 0 to 86400, got "30""#),
    ]

    @Test(arguments: rejections)
    func rejectsNamingTheField(_ rejection: Rejection) {
        let error = validationError { _ = try TaskEnd.decode(from: Array(rejection.body.utf8)) }
        #expect(error == TaskValidationError(field: rejection.field, message: rejection.message))
    }

    @Test(arguments: [
        (#"{"status":"completed","last_error":""}"#, TaskEnd(status: .completed, lastError: "")),
        (
            #"{"status":"failed","last_error":"tap missed","expected_revision":4}"#,
            TaskEnd(status: .failed, lastError: "tap missed", expectedRevision: 4)
        ),
        (#"{"status":"canceled","reason":"user"}"#, TaskEnd(status: .canceled)),
        (#"{"status":"completed","dismiss_after_seconds":0}"#, TaskEnd(status: .completed, dismissAfterSeconds: 0)),
        (
            #"{"status":"completed","dismiss_after_seconds":86400}"#,
            TaskEnd(status: .completed, dismissAfterSeconds: 86400)
        ),
        (#"{"status":"completed","dismiss_after_seconds":null}"#, TaskEnd(status: .completed)),
    ])
    func decodesTerminalStatuses(body: String, expected: TaskEnd) throws {
        #expect(try TaskEnd.decode(from: Data(body.utf8)) == expected)
    }

    @Test func endsBuiltInCodeMeetTheSameRules() {
        #expect(validationError { try TaskEnd(status: .needsApp).validate() }?.field == "status")
        #expect(validationError { try TaskEnd(status: .failed, lastError: "\u{0}").validate() }?.field == "last_error")
        #expect(validationError { try TaskEnd(status: .failed, lastError: "ok").validate() } == nil)
        #expect(
            validationError { try TaskEnd(status: .completed, dismissAfterSeconds: -1).validate() }?.field
                == "dismiss_after_seconds")
    }
}
