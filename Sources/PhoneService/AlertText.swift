import PhoneCore

/// The words people see for an alert. The task's own words come first (its title, then the step of a
/// handoff or the error of a failure) and the request id last, so a line says what happened before it
/// says which record it was about. The task's words arrive cleaned and bounded (`Alert.describing`);
/// the ids, also from the board, are bounded here, and the line and the body are cleaned as a whole
/// (`BoardText`), so no alert reaches a terminal or a notification with a control, separator or format
/// character of the board's, however it was built.
package enum AlertText {
    /// Most characters of an id shown (request ids are at most 128 on a well-behaved board).
    static let idLimit = 64

    /// Fixed words for the transition, without board text: the notification summary, and the start of
    /// the line when the task's title is not known.
    package static func headline(_ alert: Alert) -> String {
        DesktopCard.headline(alert.transition)
    }

    /// `Open Settings: Your turn: Enter the Wi-Fi password (chat_1)`, `Open Settings: Completed (chat_1)`,
    /// `Task failed (chat_1)` (nothing known of the task), `Connected to the board (usb-1a2b3c4d-1-7)`.
    package static func line(_ alert: Alert) -> String {
        let opening = alert.title.map { $0 + ": " + label(alert.transition) } ?? headline(alert)
        let text = ([opening] + [detail(alert)].compactMap { $0 }).joined(separator: ": ")
        return BoardText.oneLine(text + (subject(alert).map { " (\($0))" } ?? ""))
    }

    /// The notification body: the task's words without the request id (`Open Settings: Enter the Wi-Fi
    /// password`); `Task chat_1` or `Session usb-…` when nothing else is known.
    package static func body(_ alert: Alert) -> String {
        DesktopCard.body(alert)
    }

    /// What follows the title.
    private static func label(_ transition: AlertTransition) -> String {
        switch transition {
        case .connected: "Connected to the board"
        case .handoff: "Your turn"
        case .foregroundRecovery: "Bring the companion app to the foreground"
        case .completed: "Completed"
        case .failed: "Failed"
        }
    }

    /// The step a handoff asks for, the error of a failure.
    private static func detail(_ alert: Alert) -> String? {
        switch alert.transition {
        case .handoff: alert.step
        case .failed: alert.error
        case .connected, .foregroundRecovery, .completed: nil
        }
    }

    private static func subject(_ alert: Alert) -> String? {
        BoardText.line(alert.requestID ?? alert.connectionID, limit: idLimit)
    }
}
