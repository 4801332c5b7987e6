import DBus
import DBusModel
import Foundation
import Synchronization
import Testing

/// aiden-phone as a process on a desktop: its alerts reach `org.freedesktop.Notifications` on the
/// session bus, found by `DBUS_SESSION_BUS_ADDRESS` or (a user service without it) at
/// `$XDG_RUNTIME_DIR/bus`. The test runs a private session dbus-daemon and plays the notification server.
@Suite(.serialized) struct DesktopNotificationFlowTests {
    static let daemon = SessionBus.daemon

    final class Received: Sendable {
        let summaries = Mutex<[String]>([])
        let bodies = Mutex<[String]>([])
    }

    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: daemon), "needs dbus-daemon (apt install dbus)"),
        arguments: [false, true])
    func alertsBecomeDesktopNotifications(inRuntimeDirectory: Bool) async throws {
        let scratch = try Scratch("aiden-desktop")
        let (bus, address) = try SessionBus.start(socket: "\(scratch.path)/bus")
        // The daemon inherits the test process's blocked SIGTERM: only SIGKILL ends it.
        defer { SessionBus.stop(bus) }

        let received = Received()
        let server = try await DBusConnection.connect(to: .address(address), timeout: .seconds(5))
        defer { server.close() }
        try server.export(
            DBusExportedObject(interfaces: [
                DBusInterface(
                    "org.freedesktop.Notifications",
                    methods: [
                        DBusMethod("GetServerInformation", outputs: "ssss") { _ throws(DBusError) in
                            [.string("fake-notifyd"), .string("tests"), .string("1"), .string("1.2")]
                        },
                        DBusMethod("Notify", inputs: "susssasa{sv}i", outputs: "u") { message throws(DBusError) in
                            received.summaries.withLock { $0.append(message.body[3].stringValue ?? "?") }
                            received.bodies.withLock { $0.append(message.body[4].stringValue ?? "?") }
                            return [.uint32(1)]
                        },
                    ])
            ]), at: "/org/freedesktop/Notifications")
        _ = try await server.requestName("org.freedesktop.Notifications")

        let wakePort = try freeLoopbackPort()
        let board = try BoardProcess(wakeTarget: "127.0.0.1:\(wakePort)")
        let phone = try PhoneProcess(boardURL: "http://127.0.0.1:\(board.port)", wakePort: wakePort)
        try board.start()
        defer { board.stop() }
        try phone.start(
            environment: inRuntimeDirectory ? ["XDG_RUNTIME_DIR": scratch.path] : ["DBUS_SESSION_BUS_ADDRESS": address])
        defer { phone.stop() }
        #expect(phone.waitForCard { $0["state"] as? String == "standby" })

        let id = try board.aidenctl(["task", "start", "--title", "Notify me"]).lastLine
        #expect(phone.waitForCard { $0["state"] as? String == "running" })
        _ = try board.aidenctl(["task", "end", "--id", id, "--status", "completed"])
        #expect(phone.waitForCard { $0["state"] as? String == "completed" })

        let deadline = Date().addingTimeInterval(10)
        // The task's card goes from running to completed (and "connected" comes alone): wait for the end.
        while Date() < deadline, !received.summaries.withLock({ $0.contains("Task completed") }) { usleep(20_000) }
        usleep(300_000)  // room for a second completion post, which must not come
        let summaries = received.summaries.withLock { $0 }
        #expect(summaries.contains("Task completed"), "\(summaries)")
        #expect(summaries.filter { $0 == "Task completed" }.count == 1)
        let bodies = received.bodies.withLock { $0 }
        #expect(bodies.contains("Notify me"), "the completion names the task: \(bodies)")

        // --json, so no card: the notifications are the way back to the task the board hears of.
        #expect(
            phone.waitFor { _ in
                let app = (try? board.http("/status"))?.json?["phone_app"] as? [String: Any]
                return app?["return_entry"] as? String == "notification"
                    && app?["return_entry_available"] as? Bool == true
            })
    }
}
