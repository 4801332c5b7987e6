import Glibc
import TestSupport
import Testing

/// The aiden-phone executable with `[wake] transport = "bluez"` on a private "system bus" whose fake
/// bluetoothd shows a board: the phone finds it, subscribes, and every Wake it receives over "BLE"
/// makes it fetch from the (real) board over HTTP.
@Suite(
    "aiden-phone with the bluez transport", .serialized,
    .enabled(
        if: FakeBluetoothd.available && BoardBinary.path != nil && BoardBinary.productPath("aiden-phone") != nil,
        "needs the fake bluetoothd, aiden-board and aiden-phone"))
struct PhoneDaemonBlueZTests {
    static func write(_ text: String, to path: String) throws {
        guard let file = fopen(path, "w") else { throw RawHTTP.Failure(description: "cannot write \(path)") }
        fputs(text, file)
        fclose(file)
    }

    static func read(_ path: String) -> String {
        guard let file = fopen(path, "r") else { return "" }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func wakesOverBLEMakeThePhoneFetch() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        var template = Array("/tmp/aiden-bluez-phone-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw RawHTTP.Failure(description: "mkdtemp") }
        let scratch = String(cString: made)
        defer { _ = system("rm -rf '\(scratch)'") }
        let port = try RawHTTP.freeLoopbackPort()
        try Self.write(
            """
            [http]
            listen = ["127.0.0.1:\(port)"]
            [wake]
            transport = "loopback"
            loopback_target = "127.0.0.1:9"
            [agent]
            socket = "\(scratch)/agent.sock"
            [state]
            directory = "\(scratch)/board-state"

            """, to: scratch + "/board.toml")
        try Self.write(
            """
            [board]
            url = "http://127.0.0.1:\(port)"
            [wake]
            transport = "bluez"
            [phone]
            id = "ble-phone"
            [state]
            directory = "\(scratch)/phone-state"
            [log]
            level = "debug"

            """, to: scratch + "/phone.toml")

        let fake = try await FakeBluetoothd.start(bus: bus, role: "phone")
        defer { fake.stop() }
        let board = try BoardBinary(
            arguments: ["--config", scratch + "/board.toml"], environment: [:],
            log: scratch + "/board.log")
        defer { board.kill9() }
        let phone = try BoardBinary(
            product: "aiden-phone", arguments: ["--config", scratch + "/phone.toml", "--json"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "PATH": "/usr/bin:/bin"],
            log: scratch + "/phone.log")
        defer { phone.kill9() }

        let output = scratch + "/phone.log"
        try await eventually("the phone subscribed and got Wakes", diagnostics: { Self.read(output) }) {
            let text = Self.read(output)
            return text.contains(#""event":"wake""#) && text.contains(#""epoch":4660"#)
                && text.contains(#""state":"standby""#) && text.contains(#""wake":"connected""#)
        }
        let lines = try await fake.waitFor("the phone's subscription") {
            $0.contains { $0.hasPrefix("call StartNotify") }
        }
        #expect(lines.filter { $0.hasPrefix("call StartNotify") }.count == 1)
        // The card comes from the board's HTTP answer, fetched because of a BLE Wake.
        #expect(Self.read(output).contains(#""event":"card""#))
    }
}
