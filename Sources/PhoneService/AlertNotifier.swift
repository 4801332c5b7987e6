import PhoneCore

/// Where alerts go. The terminal and `--json` outputs are notifiers; a desktop notifier (D-Bus
/// `org.freedesktop.Notifications`) plugs in here too. `deliver` is called once per alert, after
/// the alert record that suppresses its repetition is saved, on the client's serial path: it must
/// not block for long (hand slow work to your own queue).
package protocol AlertNotifier: Sendable {
    func deliver(_ alert: Alert)
}

/// The words people see for an alert (terminal line, notification body).
package enum AlertText {
    package static func headline(_ alert: Alert) -> String {
        switch alert.transition {
        case .connected: "Connected to the board"
        case .handoff: "Your turn: the task needs you on the phone"
        case .foregroundRecovery: "Bring the companion app to the foreground"
        case .completed: "Task completed"
        case .failed: "Task failed"
        }
    }

    /// `Task completed (chat_1)`, `Connected to the board (usb-1-7)`.
    package static func line(_ alert: Alert) -> String {
        let subject = alert.requestID ?? alert.connectionID
        return headline(alert) + (subject.map { " (\($0))" } ?? "")
    }
}
