import PhoneCore
import Testing

@testable import PhoneService

@Suite struct AlertTextTests {
    private static let handoff = Alert(
        transition: .handoff, requestID: "chat_3f9a1c", epoch: 1, title: "Open Settings",
        step: "Enter the Wi-Fi password", action: "request_user_input")

    /// The terminal line and the notification's summary and body for each kind of alert: the task's
    /// words first, the request id last on the line and not in the body.
    @Test(arguments: [
        (
            Alert(transition: .connected, connectionID: "usb-1a2b3c4d-1-7"),
            "Connected to the board (usb-1a2b3c4d-1-7)", "Connected to the board", "Session usb-1a2b3c4d-1-7"
        ),
        (
            handoff, "Open Settings: Your turn: Enter the Wi-Fi password (chat_3f9a1c)", "Your turn on the phone",
            "Open Settings: Enter the Wi-Fi password"
        ),
        (
            Alert(transition: .handoff, requestID: "chat_1", title: "Open Settings"),
            "Open Settings: Your turn (chat_1)", "Your turn on the phone", "Open Settings"
        ),
        (
            Alert(transition: .foregroundRecovery, requestID: "chat_1", title: "Open Settings"),
            "Open Settings: Bring the companion app to the foreground (chat_1)",
            "Bring the companion app to the foreground", "Open Settings"
        ),
        (
            Alert(transition: .completed, requestID: "chat_1", title: "Open Settings"),
            "Open Settings: Completed (chat_1)", "Task completed", "Open Settings"
        ),
        (
            Alert(transition: .failed, requestID: "chat_1", title: "Open Settings", error: "the password was refused"),
            "Open Settings: Failed: the password was refused (chat_1)", "Task failed",
            "Open Settings: the password was refused"
        ),
        // Nothing known of the task (its read failed): the fixed words and the id.
        (Alert(transition: .failed, requestID: "chat_1"), "Task failed (chat_1)", "Task failed", "Task chat_1"),
        (
            Alert(transition: .handoff, requestID: "chat_1"), "Your turn on the phone (chat_1)",
            "Your turn on the phone", "Task chat_1"
        ),
        // A task without a title but with an error.
        (
            Alert(transition: .failed, requestID: "chat_1", error: "disk full"), "Task failed: disk full (chat_1)",
            "Task failed", "disk full"
        ),
    ])
    func wording(alert: Alert, line: String, summary: String, body: String) {
        #expect(AlertText.line(alert) == line)
        let notification = DesktopCard(alert: alert)
        #expect(notification.summary == summary)
        #expect(notification.body == body)
    }

    @Test func headlinesAreDistinctAndCarryNoBoardText() {
        #expect(
            Set(AlertTransition.allCases.map { AlertText.headline(Alert(transition: $0)) }).count
                == AlertTransition.allCases.count)
        #expect(AlertText.headline(Self.handoff) == AlertText.headline(Alert(transition: .handoff)))
    }

    /// An alert is cleaned where it is put into words, whoever built it: the terminal line and the
    /// notification body keep no control, separator or format character of the board's text.
    @Test func hostileWordsAreCleanedWhereverTheAlertCameFrom() {
        let alert = Alert(
            transition: .failed, requestID: "chat_1", title: "Open\u{1B}]8;;x\u{07} Settings\u{202E}",
            error: "line 1\nline 2\u{2028}\u{9B}2J\u{2066}end")
        #expect(AlertText.line(alert) == "Open ]8;;x Settings: Failed: line 1 line 2 2Jend (chat_1)")
        #expect(AlertText.body(alert) == "Open ]8;;x Settings: line 1 line 2 2Jend")
        let notification = DesktopCard(alert: alert)
        #expect(notification.body == AlertText.body(alert))
        #expect(notification.summary == "Task failed")
    }

    /// Ids come from the board too: cleaned and bounded like the task's words before they reach a terminal.
    @Test func hostileIDsAreCleanedAndBounded() {
        let alert = Alert(
            transition: .completed, requestID: "chat\u{1B}[2J\u{202E}_1" + String(repeating: "z", count: 500))
        let line = AlertText.line(alert)
        #expect(line.hasPrefix("Task completed (chat [2J_1zzz"))
        #expect(line.hasSuffix("...)"))
        #expect(line.unicodeScalars.count == "Task completed ()".count + AlertText.idLimit)
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{202E}" })
        #expect(!AlertText.body(alert).unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{202E}" })
    }
}
