import DBus
import DBusModel
import Foundation
import Synchronization
import Testing

/// aiden-phone as a process on a desktop: its alerts reach `org.freedesktop.Notifications` on the
/// session bus. The test runs a private session dbus-daemon and plays the notification server.
@Suite(.serialized) struct DesktopNotificationFlowTests {
    static let daemon = "/usr/bin/dbus-daemon"

    /// A private session bus; killed with the returned process.
    func startSessionBus(in scratch: Scratch) throws -> (Process, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.daemon)
        process.arguments = [
            "--session", "--nofork", "--nopidfile", "--print-address=1",
            "--address=unix:path=\(scratch.path)/session-bus",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !line.contains(0x0A) {
            line.append(output.fileHandleForReading.availableData)
        }
        let address = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard address.hasPrefix("unix:") else { throw IntegrationError("dbus-daemon gave no address") }
        return (process, address)
    }

    final class Received: Sendable {
        let summaries = Mutex<[String]>([])
        let bodies = Mutex<[String]>([])
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: daemon), "needs dbus-daemon (apt install dbus)"))
    func alertsBecomeDesktopNotifications() async throws {
        let scratch = try Scratch("aiden-desktop")
        let (bus, address) = try startSessionBus(in: scratch)
        defer {
            // The daemon inherits the test process's blocked SIGTERM: only SIGKILL ends it.
            kill(bus.processIdentifier, SIGKILL)
            bus.waitUntilExit()
        }

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
        try phone.start(environment: ["DBUS_SESSION_BUS_ADDRESS": address])
        defer { phone.stop() }
        #expect(phone.waitForCard { $0["state"] as? String == "standby" })

        let id = try board.aidenctl(["task", "start", "--title", "Notify me"]).lastLine
        #expect(phone.waitForCard { $0["state"] as? String == "running" })
        _ = try board.aidenctl(["task", "end", "--id", id, "--status", "completed"])
        #expect(phone.waitForCard { $0["state"] as? String == "completed" })

        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, received.summaries.withLock({ $0.count }) < 2 { usleep(20_000) }
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
