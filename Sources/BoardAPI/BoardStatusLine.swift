import FoundationEssentials

/// The board's live `STATUS=` for systemd (`systemctl status aiden-board` shows it): "2 tasks, phone subscribed,
/// last Wake 3 s ago". Pure: the shell passes the engine's facts and the wall time, and sends the text.
package enum BoardStatusLine {
    package static func text(activeTasks: Int, wake: WakeFacts, bluetooth: BluetoothFacts, now: Date) -> String {
        [tasks(activeTasks), phone(transport: wake.transport, bluetooth: bluetooth), lastWake(wake.lastAt, now: now)]
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

    static func lastWake(_ at: Date?, now: Date) -> String {
        guard let at else { return "no Wake yet" }
        return "last Wake \(age(now.timeIntervalSince(at)))"
    }

    /// `3 s ago`, `4 min ago`, `2 h ago`, `3 d ago`: rounded down, never negative (a clock set back).
    package static func age(_ seconds: Double) -> String {
        let whole = Int(max(0, seconds.rounded(.down)))
        switch whole {
        case ..<60: return "\(whole) s ago"
        case ..<3600: return "\(whole / 60) min ago"
        case ..<86_400: return "\(whole / 3600) h ago"
        default: return "\(whole / 86_400) d ago"
        }
    }
}
