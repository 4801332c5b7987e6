import DBus
import DBusModel
import Foundation
import Testing

/// `aiden-phone doctor` as a built binary against a board on loopback (200, 403, nothing listening) and
/// private session buses (no server, a server found by the variable or in the runtime directory, a dead
/// address): its lines and its exit status.
@Suite(.serialized) struct PhoneDoctorCommandTests {
    /// A loopback-Wake configuration for a board at `url`; returns its path.
    func configuration(_ scratch: Scratch, board url: String) throws -> String {
        let path = scratch.path + "/phone.toml"
        try """
        [board]
        url = "\(url)"
        [wake]
        transport = "loopback"
        loopback_listen = "127.0.0.1:47999"
        [state]
        directory = "\(scratch.path)/state"
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func doctor(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
        try runCommand(
            try #require(Products.path("aiden-phone")), ["doctor"] + arguments, environment: environment,
            timeoutSeconds: 30)
    }

    @Test func aBoardThatAnswersIsAllWell() throws {
        let scratch = try Scratch("aiden-doctor")
        let board = try FakeBoardServer(.idle)
        let result = try doctor(["--config", try configuration(scratch, board: board.url)])
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(
            result.output.split(separator: "\n").map(String.init) == [
                "ok: configuration \(scratch.path)/phone.toml is valid",
                "info: state directory \(scratch.path)/state does not exist yet; it is made on start",
                "info: the board is on loopback (\(board.url)): no USB link, udev rule, USB device or hotplug to "
                    + "check",
                "ok: GET \(board.url)/status answers 200 (board instance fake01)",
                "ok: wake transport: loopback UDP on 127.0.0.1:47999",
                "info: no session bus (DBUS_SESSION_BUS_ADDRESS unset, no $XDG_RUNTIME_DIR/bus): no desktop "
                    + "notifications; alerts go to the terminal and --json (fix: run aiden-phone in your desktop "
                    + "session (its systemd --user unit) to get desktop notifications)",
            ])
        #expect(board.count("/status") == 1, "the doctor asks once and changes nothing")
        #expect(board.count("/api/phone/app-state") == 0)
    }

    @Test func a403AndNoAnswerAreProblems() throws {
        let scratch = try Scratch("aiden-doctor")
        let refusing = try FakeBoardServer(.forbidden)
        let refused = try doctor(["--config", try configuration(scratch, board: refusing.url)])
        #expect(refused.status == 1)
        #expect(
            refused.output.contains(
                "problem: GET \(refusing.url)/status answered 403: the board refuses this host, whose address toward "
                    + "it is outside the board's allowed subnets; the board says: peer 127.0.0.1 is not allowed (fix: "),
            "\(refused.output)")

        let port = try freeLoopbackPort()
        let silent = try doctor(["--config", try configuration(scratch, board: "http://127.0.0.1:\(port)")])
        #expect(silent.status == 1)
        #expect(
            silent.output.contains("problem: GET http://127.0.0.1:\(port)/status got no answer"), "\(silent.output)")
    }

    @Test func usageAndConfigurationErrors() throws {
        let usage = try doctor(["--json=yes"])
        #expect(usage.status == 64)
        #expect(usage.error.contains("--json takes no value"))
        let help = try runCommand(try #require(Products.path("aiden-phone")), ["--help"])
        #expect(help.output.contains("aiden-phone doctor [--json] [--config FILE]"))
        let missing = try doctor(["--config", "/nonexistent/phone.toml"])
        #expect(missing.status == 1)
        #expect(missing.output.hasPrefix("problem: /nonexistent/phone.toml"), "\(missing.output)")
        #expect(missing.output.split(separator: "\n").count == 1, "nothing else can be checked without it")
        // The same run as JSON: the same exit status, the one check named.
        let json = try doctor(["--json", "--config", "/nonexistent/phone.toml"])
        #expect(json.status == 1)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any], "\(json.output)")
        #expect(object["result"] as? String == "problem")
        #expect(object["exit_status"] as? Int == 1)
        let checks = try #require(object["checks"] as? [[String: Any]])
        #expect(checks.map { $0["name"] as? String } == ["configuration"])
        #expect(checks.first?["status"] as? String == "problem")
        #expect((checks.first?["message"] as? String)?.hasPrefix("/nonexistent/phone.toml") == true)
        #expect(checks.first?["fix"] is String)
    }

    /// The session bus and who owns org.freedesktop.Notifications on it.
    @Test(.enabled(if: SessionBus.available, "needs dbus-daemon (apt install dbus)"))
    func desktopNotificationsAreFoundWhereTheClientFindsThem() async throws {
        let scratch = try Scratch("aiden-doctor")
        let board = try FakeBoardServer(.idle)
        let config = try configuration(scratch, board: board.url)
        let (bus, address) = try SessionBus.start(socket: scratch.path + "/bus")
        defer { SessionBus.stop(bus) }

        let bare = try doctor(["--config", config], environment: ["DBUS_SESSION_BUS_ADDRESS": address])
        #expect(bare.status == 0, "no notification server is not a problem: \(bare.output)")
        // ServiceUnknown, or NoReply where the machine has an activatable server that cannot start here (dunst
        // without a display).
        #expect(
            bare.output.contains(
                "info: no notification server on the session bus \(address) (DBUS_SESSION_BUS_ADDRESS) "
                    + "(org.freedesktop.Notifications: org.freedesktop.DBus.Error."), "\(bare.output)")

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
                        DBusMethod("GetCapabilities", outputs: "as") { _ throws(DBusError) in [.strings(["body"])] },
                    ])
            ]), at: "/org/freedesktop/Notifications")
        _ = try await server.requestName("org.freedesktop.Notifications")

        // A systemd --user service, or an ssh login: the socket in the runtime directory, no variable.
        let served = try doctor(["--config", config], environment: ["XDG_RUNTIME_DIR": scratch.path])
        #expect(served.status == 0)
        #expect(
            served.output.contains(
                "ok: desktop notifications via fake-notifyd tests 1 on the session bus \(scratch.path)/bus "
                    + "($XDG_RUNTIME_DIR/bus)"), "\(served.output)")

        let dead = try doctor(
            ["--config", config], environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(scratch.path)/gone"])
        #expect(dead.status == 1)
        #expect(
            dead.output.contains(
                "problem: the session bus unix:path=\(scratch.path)/gone (DBUS_SESSION_BUS_ADDRESS) is not reachable"),
            "\(dead.output)")
    }
}
