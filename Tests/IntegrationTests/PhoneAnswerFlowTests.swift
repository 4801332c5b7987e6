import Foundation
import Testing

/// The person answers back (docs/protocol.md §3.8) from the phone host, as processes over loopback:
/// aiden-board, the aiden-phone client's `--json` stream, and `aiden-phone stop|done|refuse|dismiss`
/// beside it.
///
/// `theAnswersReachTheBoardAndTheCard` goes through the board's answer endpoint
/// (`POST /api/live-activity/tasks/{id}/answer`): a board without it fails at the first answer (404).
/// `anotherPhonesTaskDoesNotAlertHere` relies on the `phone_id` the board puts on its transition events
/// (§5.1, §5.3): without it, the other phone's handoff alerts here too.
@Suite(.serialized) struct PhoneAnswerFlowTests {
    private func pair() throws -> (BoardProcess, PhoneProcess) {
        let wakePort = try freeLoopbackPort()
        let board = try BoardProcess(coalesceMilliseconds: 100, wakeTarget: "127.0.0.1:\(wakePort)")
        let phone = try PhoneProcess(
            boardURL: "http://127.0.0.1:\(board.port)", phoneID: "it-phone", wakePort: wakePort)
        return (board, phone)
    }

    private func ctl(_ board: BoardProcess, _ arguments: [String]) throws -> String {
        let result = try board.aidenctl(arguments)
        guard result.status == 0 else { throw IntegrationError("aidenctl \(arguments): \(result.error)") }
        return result.lastLine
    }

    /// `aiden-phone <answer> [ID]` with the client's configuration (same board, same phone id).
    private func answer(_ phone: PhoneProcess, _ arguments: [String]) throws -> CommandResult {
        try runCommand(
            try #require(Products.path("aiden-phone")), arguments + ["--config", phone.configPath],
            timeoutSeconds: 20)
    }

    private func state(_ value: String, _ id: String) -> ([String: Any]) -> Bool {
        { $0["state"] as? String == value && $0["request_id"] as? String == id }
    }

    @Test func theAnswersReachTheBoardAndTheCard() throws {
        let (board, phone) = try pair()
        try board.start()
        defer { board.stop() }
        try phone.start()
        defer { phone.stop() }
        let id = try ctl(
            board, ["task", "start", "--title", "Open Settings", "--phone-id", "it-phone", "--can-stop", "true"])
        #expect(phone.waitForCard(state("running", id)))

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
        try phone.start()
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
        try phone.start()
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

    @Test func withNoTaskAndNoBoardTheExitStatusSays() throws {
        let (board, phone) = try pair()
        try board.start()
        defer { board.stop() }
        let none = try answer(phone, ["stop"])
        #expect(none.status == 3)
        #expect(none.error == "aiden-phone: no current task for phone it-phone to stop\n")
        board.stop()
        let gone = try answer(phone, ["dismiss", "chat_1"])
        #expect(gone.status == 69)
        #expect(gone.error.contains("board unreachable"), "\(gone.error)")
    }
}
