import Foundation
import Testing
import WireFormat

@testable import AgentCLI

/// `HookSession`: a session's hook events, at given times, to the writes a task needs, as a timeline table;
/// and the recorded payloads (Tests/HookFixtures) read as the agents send them.
@Suite struct HookSessionTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("HookFixtures")

    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: fixtures.appendingPathComponent(name + ".json")))
    }

    static func claude(_ name: String) throws -> HookEvent { try HookEvent.claude(try fixture("claude-" + name)) }

    static let session = "5f0c1a2e-8b7d-4c3e-9a41-2d6e7f801234"

    @Test func theRecordedPayloadsReadAsTheirEvents() throws {
        let expected: [(String, HookEvent.Kind)] = [
            ("SessionStart", .sessionStart), ("UserPromptSubmit", .promptSubmitted), ("PreToolUse", .toolStarting),
            ("PostToolUse", .toolFinished), ("Notification", .notification), ("PermissionRequest", .permissionRequest),
            ("Stop", .stopped), ("SessionEnd", .sessionEnd),
        ]
        for (name, kind) in expected {
            let event = try Self.claude(name)
            #expect(event.kind == kind, "\(name)")
            #expect(event.session == Self.session)
            #expect(event.cwd == "/home/dev/aidenbridge")
        }
        let tool = try Self.claude("PreToolUse")
        #expect(HookSession.toolStep(tool) == "Bash: make test")
        #expect(try Self.claude("Notification").message == "Claude is waiting for your input")
        let codex = try HookEvent.codex(String(decoding: try Self.fixture("codex-agent-turn-complete"), as: UTF8.self))
        #expect(codex.kind == .turnComplete)
        #expect(codex.session == "019a7c3e-52b1-7d40-a6f3-0c9e8d7b6a55")
        #expect(codex.message == "All 212 tests pass now. Shall I commit?")
    }

    @Test func inputThatIsNoEventIsRefusedNamingWhatIsWrong() {
        #expect(throws: HookEvent.InputError(description: "Claude Code's hook input is not a JSON object")) {
            try HookEvent.claude(Array("not json".utf8))
        }
        #expect(throws: HookEvent.InputError(description: "no session_id in Claude Code's hook input")) {
            try HookEvent.claude(Array(#"{"hook_event_name":"Stop"}"#.utf8))
        }
        #expect(throws: HookEvent.InputError(description: "no type in Codex's notify argument")) {
            try HookEvent.codex(#"{"thread-id":"t"}"#)
        }
    }

    @Test func aSessionIdNamesTheSameValidTaskEveryTime() throws {
        let event = try Self.claude("Stop")
        #expect(HookSession.requestID(event, generation: 1) == "claude-" + Self.session)
        #expect(HookSession.requestID(event, generation: 3) == "claude-\(Self.session).3")
        // An id outside the request-id rule (or too long) is named by its digest, the same every time.
        let odd = HookEvent(agent: .codex, kind: .turnComplete, session: "cwd:/home/dev/my project")
        let id = HookSession.requestID(odd, generation: 1)
        #expect(id == HookSession.requestID(odd, generation: 1))
        #expect(id.hasPrefix("codex-h") && IdentifierRule.isValid(id))
        let long = HookEvent(agent: .claude, kind: .stopped, session: String(repeating: "a", count: 300))
        #expect(IdentifierRule.isValid(HookSession.requestID(long, generation: 99)))
    }

    @Test func theAgentsTextBecomesOneBoundedLine() {
        #expect(HookSession.line("make\n  test\t--verbose\u{1b}[0m") == "make test --verbose [0m")
        let long = HookSession.line(String(repeating: "x", count: 400))
        #expect(long.count == HookSession.stepLimit && long.hasSuffix("…"))
    }

    /// The board refuses a step holding a bidi control and counts its limit in Unicode scalars: the line drops
    /// bidi and format characters and is cut to `limit` scalars between characters, however many marks each
    /// holds. (It used to pass bidi controls on and count characters, so the board refused such a step.)
    @Test func theAgentsLineIsOneTheBoardAccepts() {
        #expect(HookSession.line("pay\u{202E}lanoitan\u{202C} \u{2066}x\u{2069}\u{200B}") == "paylanoitan x")
        let accented = HookSession.line(String(repeating: "e\u{301}", count: 200))
        #expect(accented.unicodeScalars.count <= HookSession.stepLimit && accented.hasSuffix("e\u{301}…"))
        #expect(HookSession.line("👩🏽\u{200D}💻 done") == "👩🏽\u{200D}💻 done")
    }

    /// One row: the event at a time, and the writes it makes (`start` when the task is started by it).
    struct Row: CustomStringConvertible {
        var at: Double
        var event: HookEvent
        var start: Bool = false
        var writes: [HookSession.Write] = []
        var question: String?
        var description: String { "at \(at): \(event.kind)" }
    }

    static func tool(_ kind: HookEvent.Kind, _ command: String) -> HookEvent {
        HookEvent(agent: .claude, kind: kind, session: "s", cwd: "/p", toolName: "Bash", toolSubject: command)
    }

    static func event(_ kind: HookEvent.Kind, message: String? = nil) -> HookEvent {
        HookEvent(agent: .claude, kind: kind, session: "s", cwd: "/p", message: message)
    }

    @Test func aSessionsTimelineBecomesItsTasksWrites() {
        let acting = { (step: String) in
            HookSession.Write.update(step: step, phase: .acting, action: nil, tool: "Bash")
        }
        let rows: [Row] = [
            Row(at: 0, event: Self.event(.sessionStart), start: true),
            // A second start (resume, compact) changes nothing; an unknown event neither.
            Row(at: 0.5, event: Self.event(.sessionStart)),
            Row(at: 0.6, event: Self.event(.other("PreCompact"))),
            // Within 2 s of the last write a new step waits for the next news.
            Row(at: 1, event: Self.tool(.toolStarting, "make test")),
            Row(at: 2.5, event: Self.tool(.toolStarting, "make test"), writes: [acting("Bash: make test")]),
            // The same step again is no change: nothing, then after 30 s a heartbeat.
            Row(at: 10, event: Self.tool(.toolFinished, "make test")),
            Row(at: 33, event: Self.tool(.toolFinished, "make test"), writes: [.heartbeat]),
            Row(at: 40, event: Self.tool(.toolStarting, "git diff"), writes: [acting("Bash: git diff")]),
            // A notification hands over at once; the same one again is nothing.
            Row(
                at: 40.1, event: Self.event(.notification, message: "Claude is waiting for your input"),
                writes: [
                    .update(
                        step: "Claude is waiting for your input", phase: .waitingUser, action: "request_user_input",
                        tool: nil)
                ]),
            Row(at: 41, event: Self.event(.notification, message: "Claude is waiting for your input")),
            // News after a handover resumes the work at once, clearing the request for input.
            Row(
                at: 41.2, event: Self.tool(.toolStarting, "git diff"),
                writes: [.update(step: "Bash: git diff", phase: .acting, action: "", tool: "Bash")]),
            // A permission request asks (the runner sends the question itself).
            Row(at: 41.3, event: Self.tool(.permissionRequest, "rm -rf build"), question: "Allow Bash: rm -rf build?"),
            Row(at: 50, event: Self.event(.stopped), writes: [.end(.completed)]),
            // The end is final: another end is nothing; the next prompt starts the session's next task.
            Row(at: 51, event: Self.event(.sessionEnd)),
            Row(at: 60, event: Self.event(.promptSubmitted), start: true),
            Row(at: 70, event: Self.event(.sessionEnd), writes: [.end(.completed)]),
        ]
        var state = HookState()
        for row in rows {
            let plan = HookSession.plan(row.event, state: state, now: row.at)
            #expect(plan.needsStart == row.start, "\(row)")
            #expect(plan.writes == row.writes, "\(row)")
            #expect(plan.question == row.question, "\(row)")
            state = plan.state
        }
        #expect(state.generation == 2 && state.ended)
    }

    @Test func aTaskStartedByNewsCarriesItAndTheClockGoingBackIsNoReasonToWait() {
        let plan = HookSession.plan(Self.tool(.toolStarting, "ls"), state: HookState(), now: 100)
        #expect(plan.needsStart && plan.writes.isEmpty)
        #expect(plan.start?.title == "Claude Code: p")
        #expect(plan.start?.step == "Bash: ls" && plan.start?.phase == .acting && plan.start?.tool == "Bash")
        // The wall clock stepped back (the state outlives the process): the next change is not held back.
        let next = HookSession.plan(Self.tool(.toolStarting, "pwd"), state: plan.state, now: 50)
        #expect(next.writes == [.update(step: "Bash: pwd", phase: .acting, action: nil, tool: "Bash")])
    }

    @Test func codexsTurnCompleteHandsOverWithTheAssistantsLastMessage() {
        let turn = HookEvent(
            agent: .codex, kind: .turnComplete, session: "t", cwd: "/w/app", message: "Done.\nShall I commit?")
        let first = HookSession.plan(turn, state: HookState(), now: 0)
        #expect(first.needsStart && first.start?.title == "Codex: app")
        #expect(first.start?.phase == .waitingUser && first.start?.action == "request_user_input")
        #expect(first.start?.step == "Done. Shall I commit?")
        var later = turn
        later.message = "Committed."
        #expect(
            HookSession.plan(later, state: first.state, now: 5).writes == [
                .update(step: "Committed.", phase: .waitingUser, action: "request_user_input", tool: nil)
            ])
    }
}
