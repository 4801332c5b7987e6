import FoundationEssentials
import LiveActivity

/// The board's live `STATUS=` for systemd (`systemctl status aiden-board` shows it): "2 tasks, phone subscribed,
/// last Wake at 2026-06-12T07:00:02Z". The Wake's time, not its age: a line that never goes stale by itself needs
/// no timer to refresh it, so an idle board does not wake for it. Pure: the shell passes the engine's facts and sends
/// the text.
package enum BoardStatusLine {
    package static func text(activeTasks: Int, wake: WakeFacts, bluetooth: BluetoothFacts) -> String {
        [tasks(activeTasks), phone(transport: wake.transport, bluetooth: bluetooth), lastWake(wake.lastAt)]
            .joined(separator: ", ")
    }

    static func tasks(_ count: Int) -> String {
        switch count {
        case 0: "no tasks"
        case 1: "1 task"
        default: "\(count) tasks"
        }
    }

    /// Whether a phone follows the Wakes: over BlueZ, a subscriber to the Wake characteristic (or what stands in
    /// the way); over loopback, nothing to know.
    static func phone(transport: String, bluetooth: BluetoothFacts) -> String {
        guard transport == "bluez" else { return "Wakes over \(transport)" }
        if bluetooth.wakeSubscriber { return "phone subscribed" }
        if let problem = bluetooth.problem { return "no phone subscribed (\(problem))" }
        return "no phone subscribed"
    }

    static func lastWake(_ at: Date?) -> String {
        guard let at else { return "no Wake yet" }
        // Whole seconds: enough to read, and a line that changes only with a Wake.
        return "last Wake at \(Timestamp.format(Date(timeIntervalSince1970: at.timeIntervalSince1970.rounded(.down))))"
    }
}
