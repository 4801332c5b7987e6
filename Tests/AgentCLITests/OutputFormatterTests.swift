import FoundationEssentials
import Testing
import WireFormat

@testable import AgentCLI

@Suite("Human output, golden strings")
struct OutputFormatterTests {
    static let contractExample = #"""
        {"request_id":"chat_ab12","phone_id":"","status":"running","phase":"observing",
         "task_title":"Open Settings","current_step":"Checking the current screen",
         "current_action":"observe_screen","current_target":"","current_app":"",
         "last_tool_name":"screenshot","last_error":"","progress":0.21,"shows_progress":true,
         "can_stop":true,"requires_app":false,"started_at":"2026-06-12T07:00:00Z",
         "updated_at":"2026-06-12T07:00:02Z","ended_at":null,"revision":42,"future_field":{"x":1}}
        """#

    static func snapshot(_ json: String) throws -> SnapshotView {
        try JSONDecoder().decode(SnapshotView.self, from: Data(json.utf8))
    }

    @Test func startedEndsWithTheRequestIDAlone() throws {
        let text = OutputFormatter.started(try Self.snapshot(Self.contractExample))
        #expect(
            text == """
                started task "Open Settings" (status running, phase observing, progress 21%, revision 42)
                chat_ab12

                """)
        let sparse = OutputFormatter.started(SnapshotView(requestID: "chat_1"))
        #expect(sparse == "started task\nchat_1\n")
    }

    @Test func aTitleWithALineBreakCannotPushTheIDOffTheLastLine() {
        let text = OutputFormatter.started(
            SnapshotView(
                requestID: "chat_1", status: "running",
                taskTitle: "evil\nchat_fake\u{1B}[2J"))
        #expect(text == "started task \"evil\\nchat_fake\\u{1b}[2J\" (status running)\nchat_1\n")
        #expect(text.split(separator: "\n").last == "chat_1")
    }

    /// A task stored before the board refused bidi controls (or read from another board) still cannot
    /// reorder what the terminal shows: bidi, separator and format characters are escaped like C0 and C1 ones.
    @Test func bidiAndFormatCharactersAreEscapedToo() {
        let text = OutputFormatter.started(
            SnapshotView(requestID: "chat_1", taskTitle: "pay\u{202E}lanoitan\u{2066}\u{9B}\u{2028}\u{200B}"))
        #expect(text == #"started task "pay\u{202e}lanoitan\u{2066}\u{9b}\u{2028}\u{200b}""# + "\nchat_1\n")
    }

    @Test func showPrintsPresentFieldsInContractOrder() throws {
        #expect(
            OutputFormatter.snapshot(try Self.snapshot(Self.contractExample)) == """
                request_id: chat_ab12
                status: running
                phase: observing
                task_title: Open Settings
                current_step: Checking the current screen
                current_action: observe_screen
                last_tool_name: screenshot
                progress: 0.21 (21%)
                shows_progress: true
                can_stop: true
                requires_app: false
                started_at: 2026-06-12T07:00:00Z
                updated_at: 2026-06-12T07:00:02Z
                revision: 42

                """)
    }

    @Test func anEndedTaskShowsItsErrorAndEnd() throws {
        let ended = try Self.snapshot(
            #"""
            {"request_id":"chat_9","status":"failed","phase":"acting","progress":1,"last_error":"screen locked",
             "ended_at":"2026-06-12T07:01:00Z","revision":50}
            """#)
        #expect(
            OutputFormatter.snapshot(ended) == """
                request_id: chat_9
                status: failed
                phase: acting
                last_error: screen locked
                progress: 1 (100%)
                ended_at: 2026-06-12T07:01:00Z
                revision: 50

                """)
    }

    @Test func fieldsOfTheWrongTypeReadAsAbsent() throws {
        let odd = try Self.snapshot(#"{"request_id":"chat_1","progress":"half","revision":-3,"can_stop":"yes"}"#)
        #expect(odd == SnapshotView(requestID: "chat_1"))
    }

    @Test func listIsAnAlignedTable() {
        let tasks = [
            SnapshotView(
                requestID: "chat_ab12", status: "running", phase: "observing", taskTitle: "Open Settings",
                progress: 0.21),
            SnapshotView(
                requestID: "chat_7", status: "completed", phase: "answering", taskTitle: "Send a message",
                progress: 1),
            SnapshotView(requestID: "chat_long_id_1", status: "needs_app", taskTitle: "Book a table"),
        ]
        #expect(
            OutputFormatter.taskList(tasks) == """
                ID              STATUS     PHASE      PROGRESS  TITLE
                chat_ab12       running    observing  21%       Open Settings
                chat_7          completed  answering  100%      Send a message
                chat_long_id_1  needs_app  -          -         Book a table

                """)
        #expect(OutputFormatter.taskList([]) == "no tasks\n")
    }

    @Test func statusPrintsEveryKeyFlattenedAndSorted() throws {
        let json = #"""
            {"status":"ok","version":"0.1.0","uptime_seconds":3605,"live_activity_enabled":true,
             "tasks":{"active":1,"ended":2},"wake":{"epoch":4660,"seq":18446744073709551615,"last_reason":null,
             "transports":["bluez","loopback"],"window_seconds":0.75},"listeners":[{"address":"127.0.0.1:8080"}],
             "notes":[],"extra":{},"name":"a\tb"}
            """#
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
        #expect(
            OutputFormatter.statusFields(value) == """
                extra: {}
                listeners[0].address: 127.0.0.1:8080
                live_activity_enabled: true
                name: a\\tb
                notes: []
                tasks.active: 1
                tasks.ended: 2
                uptime_seconds: 3605
                version: 0.1.0
                wake.epoch: 4660
                wake.last_reason: null
                wake.seq: 18446744073709551615
                wake.transports: bluez, loopback
                wake.window_seconds: 0.75

                """)
    }

    @Test func percentAndNumbersReadNaturally() {
        #expect(OutputFormatter.percent(0) == "0%")
        #expect(OutputFormatter.percent(0.215) == "22%")
        #expect(OutputFormatter.percent(1) == "100%")
        #expect(OutputFormatter.number(1) == "1")
        #expect(OutputFormatter.number(0.25) == "0.25")
    }

    @Test func compactJSONKeepsStringsAndOrder() {
        let raw = Array("{\n  \"b\" : \"x  y\\\" z\",\n  \"a\" : [1, 2.50]\n}\n".utf8)
        #expect(JSONText.compact(raw) == #"{"b":"x  y\" z","a":[1,2.50]}"#)
        #expect(
            JSONText.prepending(key: "request_id", value: "c\"1", to: #"{"a":1}"#)
                == #"{"request_id":"c\"1","a":1}"#)
        #expect(JSONText.prepending(key: "k", value: "v", to: "{}") == #"{"k":"v"}"#)
    }
}
