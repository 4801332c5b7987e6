import Foundation
import Testing
import WireFormat

@testable import AgentCLI

/// `HookRunner` against a scripted board and an in-memory state: what Claude Code reads on stdout (its decision
/// for a permission request, or nothing), and that every failure is a note on stderr with exit 0.
@Suite struct HookRunnerTests {
    final class MemoryStore: HookStateStore, @unchecked Sendable {
        var states: [String: HookState] = [:]

        func withState<Result>(_ key: String, _ body: (inout HookState) -> Result) -> Result {
            var state = states[key] ?? HookState()
            defer { states[key] = state }
            return body(&state)
        }
    }

    static let id = "claude-" + HookSessionTests.session

    static func task(_ phase: String, answer: String? = nil, status: String = "running") -> String {
        let given = answer.map { #","answer":{"answer":"\#($0)","answered_at":"2026-12-01T00:00:00Z"}"# } ?? ""
        return #"{"status":"ok","live_activity":{"request_id":"\#(id)","status":"\#(status)","phase":"\#(phase)","#
            + #""revision":2\#(given)}}"#
    }

    static func waited(_ outcome: String, answer: String? = nil) -> String {
        task("waiting_user", answer: answer).replacingOccurrences(
            of: #"{"status":"ok","#, with: #"{"status":"ok","for":"answer","outcome":"\#(outcome)","#)
    }

    static func run(
        _ name: String, board: MCPServerTests.ScriptedBoard, store: MemoryStore = MemoryStore(), timeout: UInt64 = 6
    ) throws -> CLIOutcome {
        let runner = HookRunner(
            socketPath: "/run/aiden/agent.sock", transport: board, store: store, idempotencyKey: "aidenctl-k")
        return runner.run(
            Command.Hook(agent: .claude, timeoutSeconds: timeout),
            input: try HookSessionTests.fixture("claude-" + name),
            now: 1000)
    }

    @Test func theDecisionIsClaudeCodesDocumentedShape() {
        #expect(
            HookRunner.decision(.allow)
                == #"{"hookSpecificOutput":{"decision":{"behavior":"allow"},"hookEventName":"PermissionRequest"}}"#
                + "\n")
        #expect(
            HookRunner.decision(.deny)
                == #"{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"Refused on the phone"},"#
                + #""hookEventName":"PermissionRequest"}}"# + "\n")
        #expect(HookRunner.decision(.stop).contains(#""behavior":"deny","interrupt":true"#))
    }

    @Test func aPermissionRequestAnsweredDoneIsAllowedAndTheCardGoesBackToWork() throws {
        let board = MCPServerTests.ScriptedBoard([
            ("POST /v1/tasks", 201, Self.task("acting")),
            ("PATCH /v1/tasks/\(Self.id)", 200, Self.task("waiting_user")),
            ("GET /v1/tasks/\(Self.id)/wait?for=answer&timeout=2", 200, Self.waited("timeout")),
            ("GET /v1/tasks/\(Self.id)/wait?for=answer&timeout=2", 200, Self.waited("came", answer: "done")),
            ("PATCH /v1/tasks/\(Self.id)", 200, Self.task("acting")),
        ])
        let store = MemoryStore()
        let outcome = try Self.run("PermissionRequest", board: board, store: store)
        #expect(outcome.standardOutput == HookRunner.decision(.allow))
        #expect(outcome.standardError == "" && outcome.exitCode == .ok)
        let bodies = board.sent.map { String(decoding: $0.body, as: UTF8.self) }
        #expect(bodies[1].contains(#""current_step":"Allow Bash: rm -rf build?""#), "\(bodies)")
        #expect(bodies[1].contains(#""current_action":"request_user_input""#) && bodies[1].contains("waiting_user"))
        #expect(bodies[4].contains(#""current_step":"Bash: rm -rf build""#) && bodies[4].contains(#""acting""#))
        #expect(store.states[Self.id]?.waiting == false)
    }

    @Test func aStaleAnswerFromAnEarlierRequestDoesNotCountForThisOne() throws {
        let board = MCPServerTests.ScriptedBoard([
            ("POST /v1/tasks", 201, Self.task("acting")),
            ("PATCH /v1/tasks/\(Self.id)", 200, Self.task("waiting_user", answer: "done")),
            ("PATCH /v1/tasks/\(Self.id)", 200, Self.task("acting", answer: "done")),
            ("PATCH /v1/tasks/\(Self.id)", 200, Self.task("waiting_user")),
            ("GET /v1/tasks/\(Self.id)/wait", 200, Self.waited("came", answer: "refuse")),
            ("PATCH /v1/tasks/\(Self.id)", 200, Self.task("planning")),
        ])
        let outcome = try Self.run("PermissionRequest", board: board)
        #expect(outcome.standardOutput == HookRunner.decision(.deny))
        #expect(board.sent.filter { $0.method == "PATCH" }.count == 4, "asked, resumed, asked anew, refused")
    }

    @Test func aStopDeniesInterruptsAndEndsTheTaskCanceled() throws {
        let board = MCPServerTests.ScriptedBoard([
            ("POST /v1/tasks", 201, Self.task("acting")),
            ("PATCH /v1/tasks/\(Self.id)", 200, Self.task("waiting_user")),
            ("GET /v1/tasks/\(Self.id)/wait", 200, Self.waited("timeout", answer: "stop")),
            ("POST /v1/tasks/\(Self.id)/end", 200, Self.task("waiting_user", status: "canceled")),
        ])
        let outcome = try Self.run("PermissionRequest", board: board)
        #expect(outcome.standardOutput == HookRunner.decision(.stop))
        let last = String(decoding: board.sent.last?.body ?? [], as: UTF8.self)
        #expect(last.contains(#""status":"canceled""#))
    }

    @Test func noAnswerWithinTheTimeoutPrintsNoDecision() throws {
        let board = MCPServerTests.ScriptedBoard(
            [
                ("POST /v1/tasks", 201, Self.task("acting")),
                ("PATCH /v1/tasks/\(Self.id)", 200, Self.task("waiting_user")),
            ]
                + Array(repeating: ("GET /v1/tasks/\(Self.id)/wait", 200, Self.waited("timeout")), count: 3))
        let outcome = try Self.run("PermissionRequest", board: board, timeout: 5)
        #expect(outcome.standardOutput == "")
        #expect(outcome.standardError == "aidenctl hook: no answer on the phone within 5 s; Claude Code asks\n")
        #expect(outcome.exitCode == .ok)
        // Holds of 2, 2 and 1 s: the timeout, and no more.
        #expect(board.sent.map(\.holdSeconds) == [0, 0, 2, 2, 1])
    }

    @Test func aBoardAwayIsANoteAndExitZeroAndNeverADecision() throws {
        for name in ["SessionStart", "PreToolUse", "PermissionRequest", "Stop"] {
            let store = MemoryStore()
            let outcome = try Self.run(name, board: MCPServerTests.ScriptedBoard([]), store: store)
            #expect(outcome.standardOutput == "", "\(name)")
            #expect(outcome.exitCode == .ok)
            if name != "Stop" {  // nothing started, nothing to end
                #expect(outcome.standardError.hasPrefix("aidenctl hook: cannot reach aiden-board at "), "\(name)")
                #expect(store.states.values.allSatisfy { !$0.started }, "a write not sent is not remembered")
            }
        }
        let bad = HookRunner(
            socketPath: "/s", transport: MCPServerTests.ScriptedBoard([]), store: MemoryStore(), idempotencyKey: "k"
        ).run(Command.Hook(agent: .claude), input: Array("{".utf8), now: 0)
        #expect(
            bad
                == CLIOutcome(
                    standardError: "aidenctl hook: Claude Code's hook input is not a JSON object; nothing sent\n",
                    exitCode: .ok))
    }

    @Test func aTaskEndedElsewhereOrAStateLostStartsTheSessionsNextTask() throws {
        // The state says started, but the board holds the task ended (409): the update starts task .2.
        let store = MemoryStore()
        var state = HookState()
        state.started = true
        store.states[Self.id] = state
        let board = MCPServerTests.ScriptedBoard([
            ("PATCH /v1/tasks/\(Self.id)", 409, #"{"status":"error","error":{"code":"conflict","message":"ended"}}"#),
            ("POST /v1/tasks", 201, Self.task("planning").replacingOccurrences(of: Self.id, with: Self.id + ".2")),
        ])
        let outcome = try Self.run("UserPromptSubmit", board: board, store: store)
        #expect(outcome.standardError == "", "\(outcome)")
        let last = String(decoding: board.sent.last?.body ?? [], as: UTF8.self)
        #expect(last.contains(#""request_id":"\#(Self.id).2""#))
        #expect(store.states[Self.id]?.generation == 2)
    }
}
