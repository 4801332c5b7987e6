import PhoneCore
import Testing

@testable import DesktopNotifications
@testable import PhoneService

@Suite struct DesktopAlertNotifierTests {
    @Test(arguments: [
        (AlertTransition.connected, DesktopNotification.Urgency.low, "device.added", "Connected to the board"),
        (.handoff, .critical, "im.received", "Your turn: the task needs you on the phone"),
        (.foregroundRecovery, .critical, "im.received", "Bring the companion app to the foreground"),
        (.completed, .normal, "transfer.complete", "Task completed"),
        (.failed, .critical, "transfer.error", "Task failed"),
    ])
    func alertsThatAskForActionAreCritical(
        transition: AlertTransition, urgency: DesktopNotification.Urgency,
        category: String, summary: String
    ) {
        let alert = Alert(
            transition: transition, requestID: transition == .connected ? nil : "chat_1",
            connectionID: transition == .connected ? "usb-1-7" : nil)
        let notification = DesktopAlertNotifier.notification(for: alert)
        #expect(notification.urgency == urgency)
        #expect(notification.category == category)
        #expect(notification.summary == summary)
        #expect(notification.body == (transition == .connected ? "Session usb-1-7" : "Task chat_1"))
    }
}
