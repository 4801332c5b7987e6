import Foundation
import Testing

/// The task's card on mako, the notification server of wlroots desktops (sway, and the Linux phones' shells that
/// share its protocol), under a headless sway run as an unprivileged user with its own session bus, as a
/// person's session runs it: one notification for the task through its life, replaced in place, and its Stop
/// button (pressed with `makoctl invoke`, as a click does) stopping the task on the board.
@Suite(.serialized, .enabled(if: WaylandDesktop.available, Comment(rawValue: WaylandDesktop.skipMessage)))
struct MakoCardTests {
    static let title = "Render the site"

    /// The notifications of `desktop` for the task, waiting up to 15 s until `condition` holds of them.
    static func cards(
        _ desktop: WaylandDesktop, _ condition: ([WaylandDesktop.Notification]) -> Bool
    ) -> [WaylandDesktop.Notification] {
        let deadline = Date().addingTimeInterval(15)
        var cards: [WaylandDesktop.Notification] = []
        while Date() < deadline {
            cards = ((try? desktop.shown()) ?? []).filter { $0.appName == "aiden-phone" && $0.body.contains(title) }
            if condition(cards) { break }
            usleep(50_000)
        }
        return cards
    }

    @Test func oneNotificationPerTaskUpdatedInPlaceAndItsStopStopsTheTask() throws {
        let desktop = try WaylandDesktop()
        defer { desktop.stop() }
        let wakePort = try freeLoopbackPort()
        let board = try BoardProcess(wakeTarget: "127.0.0.1:\(wakePort)")
        try board.start()
        defer { board.stop() }
        // The phone runs as the desktop's user, as the user unit runs it in a person's session.
        let phone = try PhoneProcess(boardURL: "http://127.0.0.1:\(board.port)", wakePort: wakePort)
        #expect(chown(phone.scratch.path, WaylandDesktop.nobody, gid_t(WaylandDesktop.nobody)) == 0)
        try phone.start(environment: desktop.environment, launcher: WaylandDesktop.asNobody)
        defer { phone.stop() }
        let met = Date().addingTimeInterval(15)
        while Date() < met, !phone.log.contains("desktop notifications via mako") { usleep(20_000) }
        #expect(phone.log.contains("desktop notifications via mako"), "\(phone.log)")

        let id = try board.aidenctl([
            "task", "start", "--title", Self.title, "--step", "Fetching the pages", "--can-stop", "true",
        ]).lastLine
        let first = Self.cards(desktop) { $0.first?.body.contains("Fetching the pages") == true }
        #expect(first.count == 1, "\(first) \(desktop.log)")
        #expect(first.first?.summary == "Task running")
        #expect(first.first?.actions["stop"] == "Stop", "\(first)")

        _ = try board.aidenctl(["task", "update", "--id", id, "--step", "Rendering 12 pages"])
        let updated = Self.cards(desktop) { $0.first?.body.contains("Rendering 12 pages") == true }
        #expect(updated.count == 1, "replaced, not stacked: \(updated); \(desktop.log.suffix(2000))")
        #expect(updated.first?.id == first.first?.id, "the same notification: \(first) then \(updated)")

        // The person presses Stop on the card: the board records it for the revision the card showed.
        try desktop.press(try #require(updated.first?.id), "stop")
        var answer: [String: Any]?
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline, answer == nil {
            usleep(100_000)
            let task = (try? board.http("/api/live-activity/status?request_id=\(id)"))?.json
            answer = (task?["live_activity"] as? [String: Any])?["answer"] as? [String: Any]
        }
        #expect(answer?["answer"] as? String == "stop", "\(phone.log)")
        #expect(phone.log.contains("notification: stop for task \(id) at revision"), "\(phone.log)")

        _ = try board.aidenctl(["task", "end", "--id", id, "--status", "canceled"])
        let ended = Self.cards(desktop) { $0.first?.summary == "Task canceled" }
        #expect(ended.count == 1, "\(ended)")
        #expect(ended.first?.id == first.first?.id, "the end replaced the card: \(ended)")
        #expect(ended.first?.actions["stop"] == nil, "no Stop on an ended card: \(ended)")
    }
}
