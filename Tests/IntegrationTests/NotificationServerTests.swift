import Foundation
import Testing

/// aiden-phone as a process against a real notification server (dunst under Xvfb, on a private
/// session bus), the way the user unit runs it in a person's session: an agent's task goes to a
/// handoff on a loopback board, and the server shows the task's card with the handoff in it.
///
/// It also takes the screenshot for docs/: with `AIDEN_SCREENSHOT=PATH` set, the PNG of the screen
/// with the notification is copied there (`scripts/notification-screenshot` does that).
@Suite(.serialized, .enabled(if: NotificationDesktop.available, Comment(rawValue: NotificationDesktop.skipMessage)))
struct NotificationServerTests {
    static let title = "Open Settings"
    static let step = "Enter the Wi-Fi password"

    @Test func aHandoffBecomesANotificationOnTheDesktop() throws {
        let desktop = try NotificationDesktop()
        defer { desktop.stop() }
        try NotificationCardTests.withStack(desktop) { board, phone in try Self.handoff(desktop, board, phone) }
    }

    /// An agent's task driven to a handoff, what dunst shows of it (and the screenshot), and what it keeps.
    static func handoff(_ desktop: NotificationDesktop, _ board: BoardProcess, _ phone: PhoneProcess) throws {
        let id = try board.aidenctl(["task", "start", "--title", Self.title]).lastLine
        #expect(phone.waitForCard { $0["state"] as? String == "running" })
        _ = try board.aidenctl([
            "task", "update", "--id", id, "--step", Self.step, "--phase", "waiting_user",
            "--action", "request_user_input", "--progress", "0.5",
        ])
        #expect(
            phone.waitFor {
                $0.contains { $0["event"] as? String == "alert" && $0["transition"] as? String == "handoff" }
            })

        // On the screen: the board's "connected" alone, and the task's one card, which the handoff updated (one
        // notification each, as many as the alerts so far).
        let alerts = phone.alertCount("connected") + phone.alertCount("handoff")
        let shown = Date().addingTimeInterval(15)
        while Date() < shown, (desktop.displayedCount() ?? 0) < alerts { usleep(20_000) }
        #expect(desktop.displayedCount() == alerts, "\(phone.alerts)")

        let screenshot = desktop.scratch.path + "/notification.png"
        try desktop.screenshot(to: screenshot)
        try Self.expectNotificationDrawn(in: screenshot)
        if let target = ProcessInfo.processInfo.environment["AIDEN_SCREENSHOT"], !target.isEmpty {
            try? FileManager.default.removeItem(atPath: target)
            try FileManager.default.copyItem(atPath: screenshot, toPath: target)
        }

        // What the server kept: the task's card at the handoff, naming the task (its title or its request id),
        // in the category aiden-phone gives a card that asks the person.
        let history = try desktop.closeAllAndReadHistory()
        let mine = history.filter { $0.appName == "aiden-phone" }
        #expect(mine.count == alerts, "\(history)")
        let handoff = mine.filter { notification in
            let text = notification.summary + "\n" + notification.body
            return text.contains(Self.title) || text.contains(id)
        }
        #expect(handoff.count == 1, "\(mine)")
        #expect(handoff.first?.category == "im.received", "\(mine)")
    }

    /// The screen is `width`×`height`, and where dunst draws (the top-right corner) is not the plain
    /// white of the empty screen.
    static func expectNotificationDrawn(in path: String) throws {
        let size = try runCommand(NotificationDesktop.identify, ["-format", "%wx%h", path])
        #expect(size.output == "\(NotificationDesktop.width)x\(NotificationDesktop.height)", "\(size.error)")
        let corner =
            "\(NotificationDesktop.notificationWidth)x40+\(NotificationDesktop.width - NotificationDesktop.notificationWidth - NotificationDesktop.offset)+\(NotificationDesktop.offset)"
        func spread(_ region: String) throws -> Double {
            let result = try runCommand(
                NotificationDesktop.convert,
                [path, "-crop", region, "+repage", "-format", "%[fx:standard_deviation]", "info:"])
            return try #require(
                Double(result.output.trimmingCharacters(in: .whitespacesAndNewlines)), "\(result.error)")
        }
        #expect(try spread(corner) > 0.05, "nothing drawn at \(corner)")
        // The check can tell: the bottom-left corner is empty screen.
        #expect(try spread("100x40+0+\(NotificationDesktop.height - 40)") == 0)
    }
}
