import Foundation
import Testing

/// The task's card on a real notification server (dunst under Xvfb, on a private session bus), as the user unit
/// shows it in a person's session: one notification per task from its start to its end, replaced in place, with
/// its progress, and buttons that answer the card the person saw.
@Suite(.serialized, .enabled(if: NotificationDesktop.available, Comment(rawValue: NotificationDesktop.skipMessage)))
struct NotificationCardTests {
    static let title = "Deploy the release"

    /// Runs a board and a phone on `desktop`, waits until the phone has met dunst, and gives them to `body`.
    static func withStack(_ desktop: NotificationDesktop, _ body: (BoardProcess, PhoneProcess) throws -> Void) throws {
        let wakePort = try freeLoopbackPort()
        let board = try BoardProcess(wakeTarget: "127.0.0.1:\(wakePort)")
        let phone = try PhoneProcess(boardURL: "http://127.0.0.1:\(board.port)", wakePort: wakePort)
        try board.start()
        defer { board.stop() }
        try phone.start(environment: ["DBUS_SESSION_BUS_ADDRESS": desktop.busAddress])
        defer { phone.stop() }
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline, !phone.log.contains("desktop notifications via dunst") { usleep(20_000) }
        #expect(phone.log.contains("desktop notifications via dunst"), "\(phone.log)")
        try body(board, phone)
    }

    /// Waits until `condition` holds of the number dunst displays; returns whether it did.
    static func waitDisplayed(_ desktop: NotificationDesktop, _ condition: (Int) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if let count = desktop.displayedCount(), condition(count) { return true }
            usleep(20_000)
        }
        return false
    }

    /// Start, progress, a handoff answered with the card's Done button, resume, the end: dunst shows the board's
    /// `connected` and one card for the task all along, and keeps one notification (one id) for the task.
    @Test func oneNotificationPerTaskFromStartToEndAndDoneAnswersIt() throws {
        let desktop = try NotificationDesktop()
        defer { desktop.stop() }
        try Self.withStack(desktop) { board, phone in
            let id = try board.aidenctl([
                "task", "start", "--title", Self.title, "--progress", "0.2", "--shows-progress", "true",
            ]).lastLine
            #expect(phone.waitForCard { $0["state"] as? String == "running" })
            #expect(Self.waitDisplayed(desktop) { $0 == 2 }, "connected and the task's card")
            _ = try board.aidenctl(["task", "update", "--id", id, "--progress", "0.6", "--step", "Building"])
            _ = try board.aidenctl([
                "task", "update", "--id", id, "--step", "Deploy to production?", "--phase", "waiting_user",
                "--action", "request_user_input",
            ])
            #expect(
                phone.waitFor {
                    $0.contains { $0["event"] as? String == "alert" && $0["transition"] as? String == "handoff" }
                })
            #expect(Self.waitDisplayed(desktop) { $0 == 2 }, "still one card for the task")

            // The person presses Done on the card: the board records it for the revision the card showed.
            let pressed = Date().addingTimeInterval(15)
            var answer: [String: Any]?
            while Date() < pressed, answer == nil {
                try desktop.press("Done")
                usleep(300_000)
                let task = (try? board.http("/api/live-activity/status?request_id=\(id)"))?.json
                answer = (task?["live_activity"] as? [String: Any])?["answer"] as? [String: Any]
            }
            #expect(answer?["answer"] as? String == "done", "\(phone.log)")
            #expect(phone.log.contains("notification: done for task \(id) at revision"), "\(phone.log)")

            _ = try board.aidenctl(["task", "update", "--id", id, "--phase", "acting", "--action", "deploy"])
            _ = try board.aidenctl(["task", "end", "--id", id, "--status", "completed"])
            #expect(phone.waitForCard { $0["state"] as? String == "completed" })
            usleep(500_000)
            #expect(desktop.displayedCount() == 2, "the ended card replaced the live one")

            let mine = try desktop.closeAllAndReadHistory().filter { $0.appName == "aiden-phone" }
            let cards = mine.filter { $0.body.contains(Self.title) }
            #expect(cards.count == 1, "one notification for the task through its life: \(mine)")
            #expect(cards.first?.summary == "Task completed", "\(mine)")
            #expect(cards.first?.category == "transfer.complete", "\(mine)")
            #expect(mine.filter { $0.summary == "Connected to the board" }.count == 1, "\(mine)")
            #expect(Set(mine.map(\.id)).count == mine.count, "\(mine)")
        }
    }

    /// A running task's card carries its progress as dunst's bar (the `value` hint).
    @Test func theCardCarriesTheProgress() throws {
        let desktop = try NotificationDesktop()
        defer { desktop.stop() }
        try Self.withStack(desktop) { board, phone in
            _ = try board.aidenctl([
                "task", "start", "--title", Self.title, "--progress", "0.4", "--shows-progress", "true", "--can-stop",
                "true",
            ])
            #expect(phone.waitForCard { $0["state"] as? String == "running" })
            #expect(Self.waitDisplayed(desktop) { $0 == 2 })
            let card = try desktop.closeAllAndReadHistory().first { $0.body.contains(Self.title) }
            #expect(card?.progress == 40, "\(String(describing: card))")
            #expect(card?.summary == "Task running")
        }
    }
}
