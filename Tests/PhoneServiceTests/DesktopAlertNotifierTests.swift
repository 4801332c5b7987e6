import PhoneCore
import Testing

@testable import DesktopNotifications
@testable import PhoneService

@Suite struct DesktopAlertNotifierTests {
    @Test(arguments: [
        (AlertTransition.connected, DesktopNotification.Urgency.low, "device.added"),
        (.handoff, .critical, "im.received"),
        (.foregroundRecovery, .critical, "im.received"),
        (.completed, .normal, "transfer.complete"),
        (.failed, .critical, "transfer.error"),
    ])
    func alertsThatAskForActionAreCritical(
        transition: AlertTransition, urgency: DesktopNotification.Urgency, category: String
    ) {
        let alert = Alert(
            transition: transition, requestID: transition == .connected ? nil : "chat_1",
            connectionID: transition == .connected ? "usb-1-7" : nil,
            title: transition == .connected ? nil : "Open Settings")
        let notification = DesktopAlertNotifier.notification(for: alert)
        #expect(notification.urgency == urgency)
        #expect(notification.category == category)
        #expect(notification.summary == AlertText.headline(alert))
        #expect(notification.body == (transition == .connected ? "Session usb-1-7" : "Open Settings"))
    }

    /// The board's words go only in the body, the part the notifier escapes for servers that render
    /// body markup; the summary is fixed text.
    @Test func boardTextReachesOnlyTheBody() {
        let alert = Alert(
            transition: .failed, requestID: "chat_1", title: "Open <b>Settings</b>",
            error: "<a href=\"x\">tap</a> & retry")
        let notification = DesktopAlertNotifier.notification(for: alert)
        #expect(notification.summary == "Task failed")
        #expect(notification.body == "Open <b>Settings</b>: <a href=\"x\">tap</a> & retry")
        #expect(
            DesktopNotifier.escapingMarkup(notification.body)
                == "Open &lt;b&gt;Settings&lt;/b&gt;: &lt;a href=\"x\"&gt;tap&lt;/a&gt; &amp; retry")
    }
}
