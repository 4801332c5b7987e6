import FoundationEssentials
import Testing

@testable import LiveActivity

/// One rejected body: the key the error must name and the message it must carry.
struct Rejection: Sendable, CustomTestStringConvertible {
    var body: String
    var field: String?
    var message: String

    init(_ body: String, _ field: String?, _ message: String) {
        self.body = body
        self.field = field
        self.message = message
    }

    var testDescription: String { body.count > 60 ? String(body.prefix(60)) + "…" : body }
}

@Suite struct TaskDraftValidationTests {
    static let rejections: [Rejection] = [
        Rejection("{}", "task_title", "is required"),
        Rejection(#"{"task_title":null}"#, "task_title", "is required"),
        Rejection(#"{"task_title":""}"#, "task_title", "must not be empty"),
        Rejection(#"{"task_title":" \t "}"#, "task_title", "must not be empty"),
        Rejection(#"{"task_title":12}"#, "task_title", "must be a string, got 12"),
        Rejection(#"{"task_title":["a"]}"#, "task_title", "must be a string, got an array"),
        Rejection(#"{"task_title":{"a":1}}"#, "task_title", "must be a string, got an object"),
        Rejection(#"{"task_title":"\#(text("a", 201))"}"#, "task_title", "must be at most 200 characters, got 201"),
        Rejection(#"{"task_title":"\#(text("🙂", 201))"}"#, "task_title", "must be at most 200 characters, got 201"),
        Rejection(#"{"task_title":"a\nb"}"#, "task_title", "must not contain control characters, found U+000A"),
        Rejection(#"{"task_title":"a\u007fb"}"#, "task_title", "must not contain control characters, found U+007F"),
        // C1 controls (CSI, NEL) act on terminals like C0 ones; bidi controls reorder what a person reads.
        Rejection(#"{"task_title":"a\u009b2Jb"}"#, "task_title", "must not contain control characters, found U+009B"),
        Rejection(#"{"task_title":"a\u0085b"}"#, "task_title", "must not contain control characters, found U+0085"),
        Rejection(
            #"{"task_title":"pay\u202elanoitan"}"#, "task_title",
            "must not contain bidi control characters, found U+202E (RIGHT-TO-LEFT OVERRIDE)"),
        Rejection(
            #"{"task_title":"t","current_step":"\u2066x\u2069"}"#, "current_step",
            "must not contain bidi control characters, found U+2066 (LEFT-TO-RIGHT ISOLATE)"),
        Rejection(
            #"{"task_title":"t","current_target":"a\u200fb"}"#, "current_target",
            "must not contain bidi control characters, found U+200F (RIGHT-TO-LEFT MARK)"),
        Rejection(
            #"{"task_title":"t","current_app":"\u061c"}"#, "current_app",
            "must not contain bidi control characters, found U+061C (ARABIC LETTER MARK)"),
        Rejection(
            #"{"task_title":"t","last_error":"line 1\n\u202dline 2"}"#, "last_error",
            "must not contain bidi control characters, found U+202D (LEFT-TO-RIGHT OVERRIDE)"),
        Rejection(
            #"{"task_title":"t","last_error":"tab\t\u0090ok"}"#, "last_error",
            "must not contain control characters, found U+0090"),
        Rejection(
            #"{"task_title":"t","request_id":""}"#, "request_id",
            #"must be 1 to 128 characters from A-Z a-z 0-9 . _ : -, got """#),
        Rejection(
            #"{"task_title":"t","request_id":"a b"}"#, "request_id",
            #"must be 1 to 128 characters from A-Z a-z 0-9 . _ : -, got "a b""#),
        Rejection(
            #"{"task_title":"t","request_id":"\#(text("r", 129))"}"#, "request_id",
            #"must be 1 to 128 characters from A-Z a-z 0-9 . _ : -, got "\#(text("r", 40))…""#),
        Rejection(
            #"{"task_title":"t","request_id":"é"}"#, "request_id",
            #"must be 1 to 128 characters from A-Z a-z 0-9 . _ : -, got "é""#),
        Rejection(#"{"task_title":"t","request_id":5}"#, "request_id", "must be a string, got 5"),
        Rejection(
            #"{"task_title":"t","phone_id":"phone/1"}"#, "phone_id",
            #"must be at most 128 characters from A-Z a-z 0-9 . _ : -, got "phone/1""#),
        Rejection(
            #"{"task_title":"t","phone_id":"\#(text("p", 129))"}"#, "phone_id",
            #"must be at most 128 characters from A-Z a-z 0-9 . _ : -, got "\#(text("p", 40))…""#),
        Rejection(
            #"{"task_title":"t","status":"completed"}"#, "status",
            #"must be one of running, needs_app, got "completed" (a task ends through end)"#),
        Rejection(
            #"{"task_title":"t","status":"runing"}"#, "status",
            #"unknown status "runing"; must be one of running, needs_app"#),
        Rejection(#"{"task_title":"t","status":1}"#, "status", "must be one of running, needs_app, got 1"),
        Rejection(
            #"{"task_title":"t","phase":"sleeping"}"#, "phase",
            #"unknown phase "sleeping"; must be one of planning, observing, acting, phone_bridge, "#
                + "waiting_app, waiting_user, verifying, answering"),
        Rejection(
            #"{"task_title":"t","phase":true}"#, "phase",
            "must be one of planning, observing, acting, phone_bridge, waiting_app, waiting_user, "
                + "verifying, answering, got true"),
        Rejection(
            #"{"task_title":"t","current_step":"\#(text("s", 501))"}"#, "current_step",
            "must be at most 500 characters, got 501"),
        Rejection(
            #"{"task_title":"t","current_step":"a\tb"}"#, "current_step",
            "must not contain control characters, found U+0009"),
        Rejection(
            #"{"task_title":"t","current_action":"\#(text("a", 201))"}"#, "current_action",
            "must be at most 200 characters, got 201"),
        Rejection(
            #"{"task_title":"t","current_target":"\#(text("a", 201))"}"#, "current_target",
            "must be at most 200 characters, got 201"),
        Rejection(
            #"{"task_title":"t","current_app":"\#(text("a", 201))"}"#, "current_app",
            "must be at most 200 characters, got 201"),
        Rejection(
            #"{"task_title":"t","last_tool_name":"\#(text("a", 201))"}"#, "last_tool_name",
            "must be at most 200 characters, got 201"),
        Rejection(#"{"task_title":"t","last_tool_name":false}"#, "last_tool_name", "must be a string, got false"),
        Rejection(
            #"{"task_title":"t","last_error":"\#(text("e", 1001))"}"#, "last_error",
            "must be at most 1000 characters, got 1001"),
        Rejection(
            #"{"task_title":"t","last_error":"bell\u0007"}"#, "last_error",
            "must not contain control characters, found U+0007"),
        Rejection(#"{"task_title":"t","progress":1.5}"#, "progress", "must be a number between 0 and 1, got 1.5"),
        Rejection(#"{"task_title":"t","progress":-0.1}"#, "progress", "must be a number between 0 and 1, got -0.1"),
        Rejection(#"{"task_title":"t","progress":2}"#, "progress", "must be a number between 0 and 1, got 2"),
        Rejection(#"{"task_title":"t","progress":-1}"#, "progress", "must be a number between 0 and 1, got -1"),
        Rejection(
            #"{"task_title":"t","progress":"0.5"}"#, "progress",
            #"must be a number between 0 and 1, got "0.5""#),
        Rejection(#"{"task_title":"t","progress":true}"#, "progress", "must be a number between 0 and 1, got true"),
        Rejection(
            #"{"task_title":"t","progress":1e400}"#, "progress",
            "must be a number between 0 and 1, got an unreadable value"),
        Rejection(
            #"{"task_title":"t","shows_progress":"yes"}"#, "shows_progress",
            #"must be true or false, got "yes""#),
        Rejection(#"{"task_title":"t","can_stop":1}"#, "can_stop", "must be true or false, got 1"),
        Rejection(#"{"task_title":"t","requires_app":[]}"#, "requires_app", "must be true or false, got an array"),
        Rejection("", nil, "body is empty; expected a JSON object"),
        Rejection(" \n", nil, "body is empty; expected a JSON object"),
        Rejection("[1]", nil, "body must be a JSON object"),
        Rejection(#""task""#, nil, "body must be a JSON object"),
        Rejection("42", nil, "body must be a JSON object"),
        Rejection("null", nil, "body must be a JSON object"),
        Rejection("true", nil, "body must be a JSON object"),
        Rejection("{", nil, "body is not valid JSON"),
        Rejection(#"{"task_title":"t"} trailing"#, nil, "body is not valid JSON"),
        Rejection(#"{task_title:"t"}"#, nil, "body is not valid JSON"),
    ]

    @Test(arguments: rejections)
    func rejectsNamingTheField(_ rejection: Rejection) {
        let error = validationError { _ = try TaskDraft.decode(from: Array(rejection.body.utf8)) }
        #expect(error == TaskValidationError(field: rejection.field, message: rejection.message))
    }

    @Test func descriptionPrefixesTheField() {
        let error = validationError { _ = try TaskDraft.decode(from: Data(#"{"task_title":"t","progress":1.5}"#.utf8)) }
        #expect(error?.description == #"field "progress": must be a number between 0 and 1, got 1.5"#)
        #expect(
            TaskValidationError(field: nil, message: "body is not valid JSON").description
                == "body is not valid JSON")
    }

    /// Bodies with a bad UTF-8 sequence, and the offset of its first byte.
    static let invalidUTF8: [([UInt8], Int)] = [
        ([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D], 2),
        (Array(#"{"task_title":"ok"#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8), 17),
        (Array(#"{"task_title":""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8), 15),
    ]

    @Test func rejectsInvalidUTF8WithTheOffset() {
        for (bytes, offset) in Self.invalidUTF8 {
            let error = validationError { _ = try TaskDraft.decode(from: bytes) }
            let message = "body is not valid UTF-8 (bad byte at offset \(offset))"
            #expect(error == TaskValidationError(field: nil, message: message))
        }
    }

    @Test(arguments: [
        #"{"task_title":"t","request_id":"\#(text("r", 128))","phone_id":"\#(text("p", 128))"}"#,
        #"{"task_title":"\#(text("🙂", 200))","current_step":"\#(text("s", 500))"}"#,
        #"{"task_title":"t","current_action":"\#(text("é", 200))","last_error":"\#(text("e", 1000))"}"#,
        #"{"task_title":"t","last_error":"line 1\nline 2\r\n\tindented"}"#,
        // Format characters that are not bidi controls are text: emoji sequences join with U+200D.
        #"{"task_title":"👨\u200d👩\u200d👧 a\u00adb","current_step":"\u00a0é"}"#,
        #"{"task_title":"t","request_id":"chat_1.2:3-x_Y","phone_id":""}"#,
        #"{"task_title":"t","progress":0}"#, #"{"task_title":"t","progress":1}"#,
        #"{"task_title":"t","progress":1.0}"#, #"{"task_title":"t","progress":0.5}"#,
        #"{"task_title":"t","status":null,"phase":null,"progress":null,"can_stop":null}"#,
        "\u{FEFF}{\"task_title\":\"bom\"}",
    ])
    func acceptsValuesAtTheirBounds(body: String) {
        #expect(validationError { _ = try TaskDraft.decode(from: Data(body.utf8)) } == nil)
    }

    @Test func decodesEveryFieldAndIgnoresUnknownAndStoreOwnedKeys() throws {
        let body = """
            {"task_title":"Open Settings","request_id":"chat_1","phone_id":"p1","status":"needs_app",
             "phase":"waiting_app","current_step":"Bring the app up","current_action":"open_app",
             "current_target":"Settings","current_app":"com.apple.Preferences","last_tool_name":"launch",
             "last_error":"timeout","progress":0.25,"shows_progress":false,"can_stop":true,"requires_app":true,
             "revision":"nonsense","started_at":5,"updated_at":null,"ended_at":[],"expected_revision":-3,
             "future":{"deep":[[[]]]}}
            """
        let draft = try TaskDraft.decode(from: Data(body.utf8))
        #expect(
            draft
                == TaskDraft(
                    taskTitle: "Open Settings", requestID: "chat_1", phoneID: "p1", status: .needsApp,
                    phase: .waitingApp, currentStep: "Bring the app up", currentAction: "open_app",
                    currentTarget: "Settings", currentApp: "com.apple.Preferences", lastToolName: "launch",
                    lastError: "timeout", progress: 0.25, showsProgress: false, canStop: true, requiresApp: true))
    }

    @Test func draftsBuiltInCodeMeetTheSameRules() {
        let cases: [(TaskDraft, String)] = [
            (TaskDraft(taskTitle: "t", progress: .nan), "progress"),
            (TaskDraft(taskTitle: "t", progress: .infinity), "progress"),
            (TaskDraft(taskTitle: "t", status: .completed), "status"),
            (TaskDraft(taskTitle: ""), "task_title"),
            (TaskDraft(taskTitle: "t", requestID: "has space"), "request_id"),
            (TaskDraft(taskTitle: "t", lastError: text("e", 1001)), "last_error"),
        ]
        for (draft, field) in cases {
            #expect(validationError { try draft.validate() }?.field == field)
        }
    }

    @Test func encodesOnlyTheMembersThatAreSet() throws {
        let draft = TaskDraft(taskTitle: "a/b", phoneID: "p1", progress: 0.5)
        let json = try LiveActivityJSON.makeEncoder().encode(draft)
        #expect(String(decoding: json, as: UTF8.self) == #"{"phone_id":"p1","progress":0.5,"task_title":"a/b"}"#)
        #expect(try TaskDraft.decode(from: json) == draft)
    }
}
