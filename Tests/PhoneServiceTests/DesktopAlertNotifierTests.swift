import DBus
import DBusModel
import DesktopNotifications
import PhoneCore
import Platform
import Synchronization
import TestSupport
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

/// Which session bus the notifier uses (`SessionBusLocation`): the variable, else the one every systemd user
/// session has.
@Suite struct SessionBusAddressTests {
    @Test(arguments: [
        (["DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus"], "unix:path=/run/user/1000/bus"),
        (
            ["DBUS_SESSION_BUS_ADDRESS": "unix:abstract=/tmp/dbus-x", "XDG_RUNTIME_DIR": "/run/user/1000"],
            "unix:abstract=/tmp/dbus-x"
        ),
        (["XDG_RUNTIME_DIR": "/run/user/1000"], "unix:path=/run/user/1000/bus"),
        (["DBUS_SESSION_BUS_ADDRESS": "", "XDG_RUNTIME_DIR": "/run/user/1000"], "unix:path=/run/user/1000/bus"),
        (["XDG_RUNTIME_DIR": "/tmp/run dir,x=y;z"], "unix:path=/tmp/run%20dir%2cx%3dy%3bz/bus"),
    ])
    func theVariableElseTheRuntimeDirectory(environment: [String: String], address: String) {
        #expect(SessionBusLocation.find(environment: environment, socketExists: { _ in true }).address == address)
    }

    @Test(arguments: [
        [:], ["XDG_RUNTIME_DIR": ""], ["XDG_RUNTIME_DIR": "run/user/1000"], ["DBUS_SESSION_BUS_ADDRESS": ""],
    ])
    func noBusWithoutEither(environment: [String: String]) {
        #expect(SessionBusLocation.find(environment: environment, socketExists: { _ in true }).address == nil)
    }
}

/// A client that came up before the desktop's notification server (the user unit at login): the
/// alerts after the server appears become notifications.
@Suite(.enabled(if: PrivateBus.daemonPath != nil, Comment(rawValue: PrivateBus.skipMessage)))
struct DesktopAlertNotifierLateServerTests {
    /// A notification server on `address` that hands every Notify summary to `summaries`.
    static func server(on address: String, _ summaries: Mailbox<String>) async throws -> DBusConnection {
        let server = try await DBusConnection.connect(to: .address(address), timeout: .seconds(5))
        try server.export(
            DBusExportedObject(interfaces: [
                DBusInterface(
                    DesktopNotifier.serviceName,
                    methods: [
                        DBusMethod("GetServerInformation", outputs: "ssss") { _ throws(DBusError) in
                            [.string("fake-notifyd"), .string("tests"), .string("1"), .string("1.2")]
                        },
                        DBusMethod("GetCapabilities", outputs: "as") { _ throws(DBusError) in [.strings(["body"])] },
                        DBusMethod("Notify", inputs: "susssasa{sv}i", outputs: "u") { message throws(DBusError) in
                            summaries.put(message.body[3].stringValue ?? "?")
                            return [.uint32(1)]
                        },
                    ])
            ]), at: "/org/freedesktop/Notifications")
        _ = try await server.requestName(DesktopNotifier.serviceName)
        return server
    }

    /// Waits (bounded) until a line containing `text` was logged.
    static func waitForLog(_ capture: LogCapture, _ text: String) async throws {
        try await withDeadline(10, "the log line '\(text)'") {
            while !capture.lines.contains(where: { $0.contains(text) }) { try await Task.sleep(for: .milliseconds(10)) }
        }
    }

    @Test func alertsAfterTheServerAppearsAreShown() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let (logger, capture) = Logger.capturing()
        let notifier = DesktopAlertNotifier(logger: logger)
        let connected = Mutex(0)
        notifier.connect(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address]) { connected.withLock { $0 += 1 } }
        try await Self.waitForLog(capture, "no desktop notification server on the session bus")
        #expect(connected.withLock { $0 } == 0, "no server, no notifications to offer")

        // An alert while there is still no server tries again, and is not shown (nor kept for later).
        notifier.deliver(Alert(transition: .failed, requestID: "chat_0"))
        try await Self.waitForLog(capture, "1 not shown, the next alert tries again")

        // The desktop's server comes up after the client: the next alert connects and is shown.
        let summaries = Mailbox<String>()
        let server = try await Self.server(on: bus.address, summaries)
        defer { server.close() }
        let completed = Alert(transition: .completed, requestID: "chat_1")
        notifier.deliver(completed)
        #expect(
            try await summaries.next(within: 10, "the first notification")
                == DesktopAlertNotifier.notification(for: completed).summary)
        #expect(capture.lines.contains { $0.contains("desktop notifications via fake-notifyd") })
        #expect(connected.withLock { $0 } == 1, "the return entry is offered once the server answers")
        // Connected now: the next one goes straight through.
        let handoff = Alert(transition: .handoff, requestID: "chat_2")
        notifier.deliver(handoff)
        #expect(
            try await summaries.next(within: 10, "the second notification")
                == DesktopAlertNotifier.notification(for: handoff).summary)
    }
}

/// Buttons per alert (issue #15 §8) and where a press goes: the answer and the task, once per
/// notification, only for the answers it offered.
@Suite struct DesktopAlertActionTests {
    @Test func theButtonsEachAlertCarries() {
        func keys(_ alert: Alert) -> [String] {
            DesktopAlertNotifier.notification(for: alert).actions.flatMap { [$0.key, $0.label] }
        }
        var stoppable = Alert(transition: .handoff, requestID: "chat_1")
        stoppable.canStop = true
        #expect(keys(Alert(transition: .handoff, requestID: "chat_1")) == ["done", "Done", "refuse", "Refuse"])
        #expect(keys(stoppable) == ["stop", "Stop", "done", "Done", "refuse", "Refuse"])
        #expect(
            keys(Alert(transition: .foregroundRecovery, requestID: "chat_1")) == ["done", "Done", "refuse", "Refuse"])
        #expect(keys(Alert(transition: .completed, requestID: "chat_1")) == ["dismiss", "Dismiss"])
        #expect(keys(Alert(transition: .failed, requestID: "chat_1")) == ["dismiss", "Dismiss"])
        #expect(keys(Alert(transition: .connected, connectionID: "usb-1")) == [])
    }
}

/// A press on a notification's button, from the server, goes to the answer path: once per
/// notification, only for an answer it offered.
@Suite(.enabled(if: PrivateBus.daemonPath != nil, Comment(rawValue: PrivateBus.skipMessage)))
struct DesktopAlertPressTests {
    /// A server that numbers its notifications 1, 2, … and hands each Notify's actions to `shown`.
    static func server(on address: String, _ shown: Mailbox<[String]>) async throws -> DBusConnection {
        let server = try await DBusConnection.connect(to: .address(address), timeout: .seconds(5))
        let counter = Mutex<UInt32>(0)
        try server.export(
            DBusExportedObject(interfaces: [
                DBusInterface(
                    DesktopNotifier.serviceName,
                    methods: [
                        DBusMethod("GetServerInformation", outputs: "ssss") { _ throws(DBusError) in
                            [.string("fake-notifyd"), .string("tests"), .string("1"), .string("1.2")]
                        },
                        DBusMethod("GetCapabilities", outputs: "as") { _ throws(DBusError) in
                            [.strings(["body", "actions"])]
                        },
                        DBusMethod("Notify", inputs: "susssasa{sv}i", outputs: "u") { message throws(DBusError) in
                            shown.put(message.body[5].stringArray ?? [])
                            return [
                                .uint32(
                                    counter.withLock {
                                        $0 += 1; return $0
                                    })
                            ]
                        },
                    ])
            ]), at: "/org/freedesktop/Notifications")
        _ = try await server.requestName(DesktopNotifier.serviceName)
        return server
    }

    @Test func aPressPostsTheAnswerForItsTaskOnce() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let shown = Mailbox<[String]>()
        let server = try await Self.server(on: bus.address, shown)
        defer { server.close() }
        let notifier = DesktopAlertNotifier(logger: Logger(component: "test") { _, _ in })
        let answers = Mutex<[String]>([])
        notifier.onAnswer { answer, requestID in answers.withLock { $0.append("\(answer.rawValue) \(requestID)") } }
        notifier.connect(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address]) {}

        @Sendable func press(_ id: UInt32, _ key: String) throws {
            try server.emit(
                .signal(
                    path: "/org/freedesktop/Notifications", interface: DesktopNotifier.serviceName,
                    member: "ActionInvoked", body: [.uint32(id), .string(key)]))
        }
        /// Presses until a new answer comes (the client learns the id from Notify's reply, which may land
        /// after the server's first signal); returns the answers so far.
        func pressUntilAnswered(_ id: UInt32, _ key: String) async throws -> [String] {
            let before = answers.withLock { $0.count }
            return try await withDeadline(10, "an answer for \(key)") {
                while true {
                    try press(id, key)
                    try await Task.sleep(for: .milliseconds(50))
                    let now = answers.withLock { $0 }
                    if now.count > before { return now }
                }
            }
        }

        var handoff = Alert(transition: .handoff, requestID: "chat_1")
        handoff.canStop = true
        notifier.deliver(handoff)
        #expect(try await shown.next() == ["stop", "Stop", "done", "Done", "refuse", "Refuse"])
        #expect(try await pressUntilAnswered(1, "stop") == ["stop chat_1"])
        try press(1, "done")  // answered already: one answer per notification

        notifier.deliver(Alert(transition: .completed, requestID: "chat_2"))
        #expect(try await shown.next() == ["dismiss", "Dismiss"])
        try press(2, "stop")  // not a button of this notification
        try press(2, "default")  // the body clicked: no answer
        // The next answer is this one: neither press above gave one.
        #expect(try await pressUntilAnswered(2, "dismiss") == ["stop chat_1", "dismiss chat_2"])
    }
}
