import Glibc
import TestSupport
import Testing

/// `aiden-phone doctor` as a process, with `[wake] transport = "bluez"`: it learns the board's Bluetooth
/// address from a real aiden-board over HTTP (whose fake bluetoothd gives it 00:AA:01:00:12:34) and looks the
/// bond up in the phone host's fake bluetoothd, on a private "system bus" of its own.
@Suite(
    "aiden-phone doctor with the bluez transport", .serialized,
    .enabled(
        if: FakeBluetoothd.available && BoardBinary.path != nil && BoardBinary.productPath("aiden-phone") != nil,
        "needs the fake bluetoothd, aiden-board and aiden-phone"))
struct PhoneDoctorBlueZTests {
    /// The phone host's bluetoothd (`--known-device`, nil: it knows no board; "absent": none runs) → the
    /// doctor's exit status and the line about the bond.
    static let cases: [(String?, Int32, String)] = [
        ("paired-trusted", 0, "ok: bonded with the board 00:AA:01:00:12:34 (Paired, Trusted)"),
        (
            nil, 1,
            "problem: no bond with the board 00:AA:01:00:12:34: bluetoothd does not know it (fix: keep the board plugged in"
        ),
        ("unpaired", 1, "problem: no bond with the board 00:AA:01:00:12:34: bluetoothd knows it but holds no bond"),
        (
            "paired", 1,
            "problem: the board 00:AA:01:00:12:34 is paired but not trusted (fix: bluetoothctl trust 00:AA:01:00:12:34)"
        ),
        ("absent", 1, "problem: bluetoothd is not running (org.bluez has no owner on the system bus)"),
    ]

    @Test func theBondWithTheBoardTheBoardNames() async throws {
        let boardBus = try PrivateBus.start()
        defer { boardBus.stop() }
        var template = Array("/tmp/aiden-bluez-doctor-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw RawHTTP.Failure(description: "mkdtemp") }
        let scratch = String(cString: made)
        defer { _ = system("rm -rf '\(scratch)'") }
        let port = try RawHTTP.freeLoopbackPort()
        try PhoneDaemonBlueZTests.write(
            """
            [http]
            listen = ["127.0.0.1:\(port)"]
            [wake]
            transport = "bluez"
            [agent]
            socket = "\(scratch)/agent.sock"
            [state]
            directory = "\(scratch)/board-state"

            """, to: scratch + "/board.toml")
        try PhoneDaemonBlueZTests.write(
            """
            [board]
            url = "http://127.0.0.1:\(port)"
            [wake]
            transport = "bluez"
            [state]
            directory = "\(scratch)/phone-state"

            """, to: scratch + "/phone.toml")

        let boardSide = try await FakeBluetoothd.start(bus: boardBus, role: "board")
        defer { boardSide.stop() }
        let board = try BoardBinary(
            arguments: ["--config", scratch + "/board.toml"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": boardBus.address, "PATH": "/usr/bin:/bin"],
            log: scratch + "/board.log")
        defer { board.kill9() }
        try await boardSide.waitFor("the board's registration") {
            $0.contains { $0.hasPrefix("registered-application") }
        }
        try await eventually("the board's address on /api/bluetooth/status") {
            (try? RawHTTP.loopback(port: port, "GET", "/api/bluetooth/status"))?.body.contains("00:AA:01:00:12:34")
                == true
        }

        for (known, expectedStatus, expectedLine) in Self.cases {
            let phoneBus = try PrivateBus.start()
            defer { phoneBus.stop() }
            let phoneSide: FakeBluetoothd? =
                known == "absent"
                ? nil
                : try await FakeBluetoothd.start(
                    bus: phoneBus, role: "phone", extra: known.map { ["--known-device", $0] } ?? [])
            defer { phoneSide?.stop() }
            let output = scratch + "/doctor-\(known ?? "none").log"
            let doctor = try BoardBinary(
                product: "aiden-phone", arguments: ["doctor", "--config", scratch + "/phone.toml"],
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": phoneBus.address, "PATH": "/usr/bin:/bin"], log: output)
            let status = try await doctor.exitStatus()
            let text = PhoneDaemonBlueZTests.read(output)
            #expect(status == expectedStatus, "\(known ?? "none"):\n\(text)")
            #expect(text.contains(expectedLine), "\(known ?? "none"):\n\(text)")
            if known != "absent" {
                #expect(text.contains("ok: bluetoothd runs; adapter hci0 (00:BB:02:00:56:78) is powered"), "\(text)")
            }
            #expect(text.contains("ok: GET http://127.0.0.1:\(port)/status answers 200"), "\(text)")
            // Looking changes nothing on the phone host's bluetoothd: no discovery, no connection, no pairing.
            #expect(phoneSide?.allLines.filter { $0.hasPrefix("call ") || $0.hasPrefix("set ") } ?? [] == [])
        }
    }
}
