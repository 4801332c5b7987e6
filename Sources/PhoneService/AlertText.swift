import PhoneCore

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
