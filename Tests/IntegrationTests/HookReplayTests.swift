import Foundation
import Testing

/// `aidenctl hook claude|codex` as the agents run it: the recorded payloads (Tests/HookFixtures) piped into the
/// built aidenctl against a real aiden-board, the card read back from the phone's endpoint, permission requests
/// answered through the phone's answer endpoint (allowed, refused, unanswered), and a board that is away.
@Suite(.serialized) struct HookReplayTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("HookFixtures")
    static let session = "5f0c1a2e-8b7d-4c3e-9a41-2d6e7f801234"
    static let id = "claude-" + session

    /// A hook process: the fixture on stdin, its own runtime directory for the session state.
    final class Hook {
        let process = Process()
        let output = Pipe()
        let error = Pipe()

        init(_ fixture: String, socket: String, runtime: String, arguments: [String] = []) throws {
            guard let binary = Products.path("aidenctl") else { throw IntegrationError("aidenctl not built") }
            process.executableURL = URL(fileURLWithPath: binary)
            let agent = fixture.hasPrefix("codex-") ? "codex" : "claude"
            let path = HookReplayTests.fixtures.appendingPathComponent(fixture + ".json").path
            var extra = arguments
            if agent == "codex" { extra.append(try String(contentsOfFile: path, encoding: .utf8)) }
            process.arguments = ["--socket", socket, "hook", agent] + extra
            process.environment = ["PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": runtime]
            process.standardInput = agent == "claude" ? FileHandle(forReadingAtPath: path) : FileHandle.nullDevice
            process.standardOutput = output
            process.standardError = error
            try process.run()
        }

        /// Waits (bounded) for the exit: the status (128 + signal when it had to be killed), stdout and stderr.
        func finish(timeoutSeconds: Double = 30) -> CommandResult {
            let deadline = Date().addingTimeInterval(timeoutSeconds)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            let killed = process.terminationReason == .uncaughtSignal
            return CommandResult(
                status: killed ? 128 + process.terminationStatus : process.terminationStatus,
                output: String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
                error: String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }
    }

    /// A runtime directory as systemd makes one: the user's, mode 0700.
    static func runtime(_ scratch: Scratch) throws -> String {
        let path = scratch.path + "/runtime"
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true,
            attributes: [
                .posixPermissions: 0o700
            ])
        return path
    }

    static func replay(
        _ fixture: String, _ board: BoardProcess, _ runtime: String, _ arguments: [String] = []
    )
        throws -> CommandResult
    {
        try Hook(fixture, socket: board.socketPath, runtime: runtime, arguments: arguments).finish()
    }

    static func task(_ board: BoardProcess, _ id: String = id) throws -> [String: Any] {
        try #require(try board.agent("GET", "/v1/tasks/\(id)").json?["live_activity"] as? [String: Any])
    }

    /// The phone's answer, through the same endpoint and body the phone uses.
    static func press(_ board: BoardProcess, _ answer: String, id answerID: String) throws {
        let body = #"{"answer":"\#(answer)","answer_id":"\#(answerID)","phone_id":"phone-1"}"#
        let response = try board.http(
            "/api/live-activity/tasks/\(id)/answer", method: "POST", body: Array(body.utf8),
            headers: [("Content-Type", "application/json")])
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
    }

    /// Runs a permission request, answers it from the phone once the card asks, and returns what the hook printed.
    static func permission(
        _ board: BoardProcess, _ runtime: String, answer: String?, answerID: String
    ) throws
        -> CommandResult
    {
        let hook = try Hook(
            "claude-PermissionRequest", socket: board.socketPath, runtime: runtime,
            arguments: answer == nil ? ["--timeout", "2"] : [])
        let asked = eventually {
            let task = try? Self.task(board)
            return task?["phase"] as? String == "waiting_user"
                && task?["current_step"] as? String == "Allow Bash: rm -rf build?"
                && task?["current_action"] as? String == "request_user_input"
        }
        #expect(asked, "the card asks what Claude Code asks")
        if let answer { try press(board, answer, id: answerID) }
        return hook.finish()
    }

    @Test func aClaudeSessionReplayedDrivesItsTaskAndThePhoneAnswersItsPermissionRequests() throws {
        let board = try BoardProcess()
        try board.start()
        defer { board.stop() }
        let scratch = try Scratch("aiden-hook")
        let runtime = try Self.runtime(scratch)

        let started = try Self.replay("claude-SessionStart", board, runtime)
        #expect(started.status == 0 && started.output == "" && started.error == "", "\(started)")
        var task = try Self.task(board)
        #expect(task["task_title"] as? String == "Claude Code: aidenbridge")
        #expect(task["current_step"] as? String == "Session started")
        // Within 2 s of the start a tool's step waits for the next news (the rate limit); once the session
        // waits for the person, the next news is sent at once.
        #expect(try Self.replay("claude-PreToolUse", board, runtime).status == 0)
        #expect(try Self.task(board)["current_step"] as? String == "Session started")
        #expect(try Self.replay("claude-Notification", board, runtime).status == 0)
        task = try Self.task(board)
        #expect(task["phase"] as? String == "waiting_user")
        #expect(task["current_step"] as? String == "Claude is waiting for your input")
        #expect(task["current_action"] as? String == "request_user_input")
        #expect(try Self.replay("claude-PreToolUse", board, runtime).status == 0)
        task = try Self.task(board)
        #expect(task["phase"] as? String == "acting" && task["current_step"] as? String == "Bash: make test")
        #expect(task["last_tool_name"] as? String == "Bash")
        #expect(try Self.replay("claude-PostToolUse", board, runtime).status == 0)

        // Allowed from the phone: Claude Code reads the allow decision, and the card goes back to work.
        let allowed = try Self.permission(board, runtime, answer: "done", answerID: "ans-allow")
        #expect(allowed.status == 0, "\(allowed)")
        let decision = try #require(jsonObject(allowed.output)?["hookSpecificOutput"] as? [String: Any])
        #expect(decision["hookEventName"] as? String == "PermissionRequest")
        #expect((decision["decision"] as? [String: Any])?["behavior"] as? String == "allow")
        #expect(allowed.output.split(separator: "\n").count == 1)
        task = try Self.task(board)
        #expect(task["phase"] as? String == "acting" && task["current_step"] as? String == "Bash: rm -rf build")

        // Refused from the phone: a deny, never an allow; the earlier done does not count for this request.
        let refused = try Self.permission(board, runtime, answer: "refuse", answerID: "ans-deny")
        #expect(refused.status == 0, "\(refused)")
        let denied = try #require(jsonObject(refused.output)?["hookSpecificOutput"] as? [String: Any])
        #expect((denied["decision"] as? [String: Any])?["behavior"] as? String == "deny")

        // Unanswered within --timeout: no decision at all (Claude Code asks in the terminal), exit 0.
        let unanswered = try Self.permission(board, runtime, answer: nil, answerID: "")
        #expect(unanswered.status == 0 && unanswered.output == "", "\(unanswered)")
        #expect(unanswered.error.contains("no answer on the phone within 2 s"))

        // Stop ends the task; the next prompt starts the session's next task, which SessionEnd ends.
        #expect(try Self.replay("claude-Stop", board, runtime).status == 0)
        #expect(try Self.task(board)["status"] as? String == "completed")
        #expect(try Self.replay("claude-UserPromptSubmit", board, runtime).status == 0)
        let next = try Self.task(board, Self.id + ".2")
        #expect(next["status"] as? String == "running" && next["current_step"] as? String == "Working on the prompt")
        #expect(try Self.replay("claude-SessionEnd", board, runtime).status == 0)
        #expect(try Self.task(board, Self.id + ".2")["status"] as? String == "completed")

        // The session's state: one private file, written whole.
        let state = runtime + "/aidenbridge/hooks/\(Self.id).json"
        let attributes = try FileManager.default.attributesOfItem(atPath: state)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let directory = try FileManager.default.attributesOfItem(atPath: runtime + "/aidenbridge/hooks")
        #expect((directory[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        #expect(jsonObject(try String(contentsOfFile: state, encoding: .utf8))?["generation"] as? Int == 2)
        #expect(!FileManager.default.fileExists(atPath: state + ".tmp"))
        // With the state lost, a resumed session finds its ended tasks taken and starts the next one.
        try FileManager.default.removeItem(atPath: state)
        #expect(try Self.replay("claude-SessionStart", board, runtime).status == 0)
        #expect(try Self.task(board, Self.id + ".3")["status"] as? String == "running")
        #expect(try Self.task(board, Self.id + ".2")["status"] as? String == "completed")

        // The phone's card is the board's: the latest task, as the phone fetches it.
        let current = try board.http("/api/live-activity/current")
        #expect(current.status == 200)
        #expect(String(decoding: current.body, as: UTF8.self).contains(Self.id))
    }

    @Test func aCodexTurnCompleteHandsOverWithItsLastMessage() throws {
        let board = try BoardProcess()
        try board.start()
        defer { board.stop() }
        let runtime = try Self.runtime(try Scratch("aiden-hook"))
        let run = try Self.replay("codex-agent-turn-complete", board, runtime)
        #expect(run.status == 0 && run.output == "" && run.error == "", "\(run)")
        let task = try Self.task(board, "codex-019a7c3e-52b1-7d40-a6f3-0c9e8d7b6a55")
        #expect(task["task_title"] as? String == "Codex: aidenbridge")
        #expect(task["phase"] as? String == "waiting_user")
        #expect(task["current_action"] as? String == "request_user_input")
        #expect(task["current_step"] as? String == "All 212 tests pass now. Shall I commit?")

        // A state directory others may write to is not used: the hook still works, and keeps no state there.
        let scratch = try Scratch("aiden-hook")
        let shared = scratch.path + "/shared"
        try FileManager.default.createDirectory(
            atPath: shared + "/aidenbridge", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: shared + "/aidenbridge")
        let again = try Self.replay("codex-agent-turn-complete", board, shared)
        #expect(again.status == 0 && again.error == "", "\(again)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: shared + "/aidenbridge") == [])
    }

    @Test func withTheBoardAwayEveryHookExitsZeroAtOnceAndNeverDecides() throws {
        let scratch = try Scratch("aiden-hook")
        let runtime = try Self.runtime(scratch)
        let socket = scratch.path + "/no-board.sock"
        for fixture in [
            "claude-SessionStart", "claude-PreToolUse", "claude-PermissionRequest", "codex-agent-turn-complete",
        ] {
            // Bounded far below the permission wait (50 s): the hook does not wait for a board that is not there.
            let run = try Hook(fixture, socket: socket, runtime: runtime).finish(timeoutSeconds: 10)
            #expect(run.status == 0, "\(fixture): \(run)")
            #expect(run.output == "", "\(fixture): never a decision")
            #expect(run.error.hasPrefix("aidenctl hook: cannot reach aiden-board at "), "\(fixture): \(run.error)")
            #expect(run.error.split(separator: "\n").count == 1)
        }
    }
}
