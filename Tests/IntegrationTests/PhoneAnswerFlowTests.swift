import Foundation
import Testing

/// The person answers back (docs/protocol.md §3.8) from the phone host, as processes over loopback:
/// aiden-board, the aiden-phone client's `--json` stream, and `aiden-phone stop|done|refuse|dismiss`
/// beside it, both in one runtime directory (`XDG_RUNTIME_DIR`), as in the person's session: an answer without
/// an ID asks the running client which task its card shows (its status socket).
///
/// `theAnswersReachTheBoardAndTheCard` goes through the board's answer endpoint
/// (`POST /api/live-activity/tasks/{id}/answer`): a board without it fails at the first answer (404).
/// `anotherPhonesTaskDoesNotAlertHere` relies on the `phone_id` the board puts on its transition events
/// (§5.1, §5.3): without it, the other phone's handoff alerts here too.
@Suite(.serialized) struct PhoneAnswerFlowTests {
    /// The person's runtime directory, 0700 as logind makes it.
    private let runtime: Scratch

    init() throws {
        runtime = try Scratch("aiden-run")
        chmod(runtime.path, 0o700)
    }

    /// `wakes`: the board's Wakes reach the phone; without them the phone knows only what it read at its start
    /// (and what the test forwards to it).
    private func pair(wakes: Bool = true) throws -> (BoardProcess, PhoneProcess) {
        let wakePort = try freeLoopbackPort()
        let board = try BoardProcess(coalesceMilliseconds: 100, wakeTarget: wakes ? "127.0.0.1:\(wakePort)" : nil)
        let phone = try PhoneProcess(
            boardURL: "http://127.0.0.1:\(board.port)", phoneID: "it-phone", wakePort: wakePort)
        return (board, phone)
    }

    private func start(_ phone: PhoneProcess) throws {
        try phone.start(environment: ["XDG_RUNTIME_DIR": runtime.path])
    }

    private func ctl(_ board: BoardProcess, _ arguments: [String]) throws -> String {
        let result = try board.aidenctl(arguments)
        guard result.status == 0 else { throw IntegrationError("aidenctl \(arguments): \(result.error)") }
        return result.lastLine
    }

    /// `aiden-phone <answer> [ID]` with the client's configuration (same board, same phone id), in the same
    /// runtime directory.
    private func answer(_ phone: PhoneProcess, _ arguments: [String]) throws -> CommandResult {
        try runCommand(
            try #require(Products.path("aiden-phone")), arguments + ["--config", phone.configPath],
            environment: ["XDG_RUNTIME_DIR": runtime.path], timeoutSeconds: 20)
    }

    /// Waits (bounded) until the client's line (`aiden-phone status`), what its notifications and tray show, has
    /// `text`: the card is on the desktop, and an answer without an ID is for it.
    private func waitForLine(containing text: String) throws -> Bool {
        let binary = try #require(Products.path("aiden-phone"))
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            let line = try runCommand(binary, ["status"], environment: ["XDG_RUNTIME_DIR": runtime.path])
            if line.status == 0, line.output.contains(text) { return true }
            usleep(50_000)
        }
        return false
    }

    private func state(_ value: String, _ id: String) -> ([String: Any]) -> Bool {
        { $0["state"] as? String == value && $0["request_id"] as? String == id }
    }

    @Test func theAnswersReachTheBoardAndTheCard() throws {
        let (board, phone) = try pair()
        try board.start()
        defer { board.stop() }
        try start(phone)
        defer { phone.stop() }
        let id = try ctl(
            board, ["task", "start", "--title", "Open Settings", "--phone-id", "it-phone", "--can-stop", "true"])
        #expect(phone.waitForCard(state("running", id)))
        #expect(try waitForLine(containing: "Open Settings"))

        // Stop, for the card's task: recorded, shown on the card, never an alert.
        let stop = try answer(phone, ["stop"])
        #expect(stop.status == 0, "\(stop.error)")
        #expect(stop.output == "Stop requested for “Open Settings” (\(id))\n")
        #expect(phone.waitForCard { $0["request_id"] as? String == id && $0["answer"] as? String == "stop" })
        // A second stop is the recorded one again.
        #expect(try answer(phone, ["stop", id]).status == 0)

        // A handoff, answered done: recorded, but the card keeps the stop, which stays until the task ends
        // (docs/protocol.md §3.8). A second request for input alerts again.
        _ = try ctl(
            board, ["task", "update", "--id", id, "--phase", "waiting_user", "--action", "request_user_input"])
        #expect(phone.waitForCard(state("handoff", id)))
        let done = try answer(phone, ["done", id])
        #expect(done.status == 0, "\(done.error)")
        #expect(phone.waitForCard { $0["request_id"] as? String == id && $0["answer"] as? String == "stop" })
        #expect(
            try board.aidenctl(["events", "--json"]).output.contains(#""answer":"done""#),
            "the done is in the ring for the agent")
        _ = try ctl(board, ["task", "update", "--id", id, "--phase", "acting", "--action", "tap"])
        _ = try ctl(
            board, ["task", "update", "--id", id, "--phase", "waiting_user", "--action", "request_user_input"])
        #expect(phone.waitFor { _ in phone.alertCount("handoff") == 2 }, "\(phone.alerts)")

        // Ended: done is refused in the board's words, dismiss is recorded.
        _ = try ctl(board, ["task", "end", "--id", id, "--status", "canceled"])
        #expect(phone.waitForCard(state("canceled", id)))
        let refused = try answer(phone, ["done", id])
        #expect(refused.status == 1)
        #expect(refused.error.contains("409: not_waiting"), "\(refused.error)")
        let dismiss = try answer(phone, ["dismiss", id])
        #expect(dismiss.status == 0, "\(dismiss.error)")
        #expect(dismiss.output == "Dismissed “Open Settings” (\(id))\n")

        // The person's own answers gave no alert; the handoffs did, one per request for input.
        #expect(phone.alerts == ["connected -", "handoff \(id)", "handoff \(id)"], "\(phone.alerts)")
    }

    /// Without the endpoint's merge this already holds: each request for input is its own event.
    @Test func eachRequestForInputAlerts() throws {
        let (board, phone) = try pair()
        try board.start()
        defer { board.stop() }
        try start(phone)
        defer { phone.stop() }
        let id = try ctl(board, ["task", "start", "--title", "Two questions", "--phone-id", "it-phone"])
        #expect(phone.waitForCard(state("running", id)))
        for round in 1...2 {
            _ = try ctl(
                board, ["task", "update", "--id", id, "--phase", "waiting_user", "--action", "request_user_input"])
            #expect(phone.waitForCard(state("handoff", id)))
            _ = try ctl(board, ["task", "update", "--id", id, "--phase", "acting", "--action", "tap"])
            #expect(phone.waitFor { _ in phone.alertCount("handoff") == round }, "\(phone.alerts)")
        }
        #expect(phone.alerts == ["connected -", "handoff \(id)", "handoff \(id)"], "\(phone.alerts)")
    }

    @Test func anotherPhonesTaskDoesNotAlertHere() throws {
        let (board, phone) = try pair()
        try board.start()
        defer { board.stop() }
        try start(phone)
        defer { phone.stop() }
        let mine = try ctl(board, ["task", "start", "--title", "Mine", "--phone-id", "it-phone"])
        _ = try ctl(
            board, ["task", "update", "--id", mine, "--phase", "waiting_user", "--action", "request_user_input"])
        #expect(phone.waitFor { _ in phone.alertCount("handoff") == 1 }, "\(phone.alerts)")
        let theirs = try ctl(board, ["task", "start", "--title", "Not mine", "--phone-id", "other-phone"])
        _ = try ctl(
            board, ["task", "update", "--id", theirs, "--phase", "waiting_user", "--action", "request_user_input"])
        // What waits for the person comes first, so the card stays on Mine: a change of it, seen on the card,
        // shows the phone has read the ring past the other phone's handoff.
        _ = try ctl(board, ["task", "update", "--id", mine, "--step", "Flushed"])
        #expect(phone.waitForCard { $0["request_id"] as? String == mine && $0["current_step"] as? String == "Flushed" })
        #expect(phone.alerts == ["connected -", "handoff \(mine)"], "\(phone.alerts)")
    }

    /// The desktop entry's actions run `aiden-phone done` with no ID: the answer is for the prompt the client
    /// shows, at its revision. A newer prompt on the board, which the client has not shown, makes it refused
    /// (`stale_revision`: one line, exit 1, nothing recorded); once the client shows that prompt, the same action
    /// is taken.
    @Test func theDesktopActionAnswersThePromptTheClientShows() throws {
        let (board, phone) = try pair(wakes: false)
        try board.start()
        defer { board.stop() }
        let id = try ctl(board, ["task", "start", "--title", "Deploy", "--phone-id", "it-phone"])
        _ = try ctl(
            board,
            [
                "task", "update", "--id", id, "--phase", "waiting_user", "--action", "request_user_input", "--step",
                "Deploy to staging?",
            ])
        try start(phone)
        defer { phone.stop() }
        let staging: ([String: Any]) -> Bool = {
            $0["state"] as? String == "handoff" && $0["current_step"] as? String == "Deploy to staging?"
        }
        #expect(phone.waitForCard(staging))
        #expect(try waitForLine(containing: "Deploy to staging?"))

        // Another question, which the phone does not hear of (no Wake reaches it).
        _ = try ctl(board, ["task", "update", "--id", id, "--phase", "acting", "--action", "tap"])
        _ = try ctl(
            board,
            [
                "task", "update", "--id", id, "--phase", "waiting_user", "--action", "request_user_input", "--step",
                "Deploy to production?",
            ])
        let refused = try answer(phone, ["done"])
        #expect(refused.status == 1)
        #expect(refused.output.isEmpty)
        #expect(
            refused.error
                == "Done not taken for “Deploy” (\(id)): the task changed since it was shown; look at the card again\n")
        #expect(!(try board.aidenctl(["events", "--json"]).output.contains(#""answer":"done""#)), "nothing recorded")
        #expect(staging(try #require(phone.lastCard)), "the client still shows the first question")

        // The board's Wake for it, handed to the phone: the card shows the new question, and the action takes it.
        #expect(board.waitForWakes { !$0.isEmpty })
        try phone.sendDatagrams([try #require(board.receivedWakes.last).bytes])
        #expect(
            phone.waitForCard {
                $0["state"] as? String == "handoff" && $0["current_step"] as? String == "Deploy to production?"
            })
        #expect(try waitForLine(containing: "Deploy to production?"))
        let taken = try answer(phone, ["done"])
        #expect(taken.status == 0, "\(taken.error)")
        #expect(taken.output == "Answered done for “Deploy” (\(id))\n")
        #expect(try board.aidenctl(["events", "--json"]).output.contains(#""answer":"done""#))
    }

    /// `aiden-phone stop` posts the answer itself and tells the running client, which reads the board at once: with
    /// no Wake reaching the client, its card still shows the stop, and then the task's end, which the agent makes
    /// right after (the client follows the answer for a second; without being told it would read the board again
    /// only at its 60 s safety fetch).
    @Test func theClientFollowsAnAnswerTheCommandMade() throws {
        let (board, phone) = try pair(wakes: false)
        try board.start()
        defer { board.stop() }
        let id = try ctl(
            board, ["task", "start", "--title", "Long job", "--phone-id", "it-phone", "--can-stop", "true"])
        try start(phone)
        defer { phone.stop() }
        #expect(phone.waitForCard(state("running", id)))
        #expect(try waitForLine(containing: "Long job"))
        let stopped = try answer(phone, ["stop"])
        #expect(stopped.status == 0, "\(stopped.error)")
        _ = try ctl(board, ["task", "end", "--id", id, "--status", "canceled"])
        #expect(phone.waitForCard { $0["answer"] as? String == "stop" }, "the stop, read at once")
        #expect(phone.waitForCard(state("canceled", id)), "the end, read while following the answer")
    }

    @Test func withNoClientNoTaskOrNoBoardTheExitStatusSays() throws {
        let (board, phone) = try pair()
        try board.start()
        defer { board.stop() }
        // No running client to say which card it shows: one line, 69, and nothing read from the board.
        let absent = try answer(phone, ["stop"])
        #expect(absent.status == 69)
        #expect(
            absent.error.hasPrefix(
                "aiden-phone: stop: no aiden-phone answers at \(runtime.path)/aiden-phone/status.sock"),
            "\(absent.error)")
        #expect(absent.error.split(separator: "\n").count == 1)
        try start(phone)
        let none = try answer(phone, ["stop"])
        #expect(none.status == 3)
        #expect(none.error == "aiden-phone: stop: the card shows no task\n")
        phone.stop()
        board.stop()
        let gone = try answer(phone, ["dismiss", "chat_1"])
        #expect(gone.status == 69)
        #expect(gone.error.contains("board unreachable"), "\(gone.error)")
    }
}
