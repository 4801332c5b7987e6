import Glibc
import TestSupport
import Testing
import WakeProtocol

/// The aiden-board executable with `[wake] transport = "bluez"` on a private "system bus" with the fake
/// bluetoothd: agent writes become 12-byte notifications with increasing sequences, across a bluetoothd
/// crash; the pairing route reaches the adapter, from the phone on the link only.
@Suite(
    "aiden-board with the bluez transport", .serialized,
    .enabled(if: FakeBluetoothd.available && BoardBinary.path != nil, "needs the fake bluetoothd and aiden-board"))
struct BoardDaemonBlueZTests {
    /// A scratch directory (removed by the caller) with a board configuration listening on `listen`.
    /// `interface`: `[http] interface`, the link the ECM listener accepts on (the lab's is `eth0`).
    func scratchWithConfig(listen: [String], interface: String = "aiden0") throws -> String {
        var template = Array("/tmp/aiden-bluez-board-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw RawHTTP.Failure(description: "mkdtemp") }
        let scratch = String(cString: made)
        let config = """
            [http]
            listen = [\(listen.map { "\"\($0)\"" }.joined(separator: ", "))]
            interface = "\(interface)"
            [wake]
            transport = "bluez"
            coalesce_milliseconds = 50
            [agent]
            socket = "\(scratch)/agent.sock"
            [state]
            directory = "\(scratch)/state"
            [log]
            level = "debug"

            """
        guard let file = fopen(scratch + "/board.toml", "w") else { throw RawHTTP.Failure(description: "config") }
        fputs(config, file)
        fclose(file)
        return scratch
    }

    @Test func agentWritesReachTheFakeBluetoothdAcrossACrash() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let port = try RawHTTP.freeLoopbackPort()
        let scratch = try scratchWithConfig(listen: ["127.0.0.1:\(port)"])
        defer { _ = system("rm -rf '\(scratch)'") }

        let fake = try await FakeBluetoothd.start(bus: bus, role: "board")
        let board = try BoardBinary(
            arguments: ["--config", scratch + "/board.toml"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "PATH": "/usr/bin:/bin"],
            log: scratch + "/board.log")
        defer { board.kill9() }

        // The start's system Wake may go out before registration (it then only sets the value); task changes
        // after registration must all arrive.
        try await fake.waitFor("registration") { $0.contains("start-notify-ok") }
        try await eventually("the agent socket") { access(scratch + "/agent.sock", F_OK) == 0 }
        var sequences: [UInt64] = []
        for index in 1...3 {
            let body = #"{"task_title":"Step \#(index)","request_id":"chat_bluez_\#(index)"}"#
            let answer = try RawHTTP.unix(scratch + "/agent.sock", "POST", "/v1/tasks", body: body)
            #expect(answer.status == 201, "\(answer.body)")
            let lines = try await fake.waitFor("Wake \(index)") {
                BoardPeripheralIntegrationTests.values($0).filter { $0.reason == .liveActivity }.count >= index
            }
            sequences = BoardPeripheralIntegrationTests.values(lines).filter { $0.reason == .liveActivity }.map(
                \.sequence)
        }
        #expect(sequences.count == 3 && sequences == sequences.sorted() && Set(sequences).count == 3)

        let status = try RawHTTP.loopback(port: port, "GET", "/api/bluetooth/status")
        #expect(status.status == 200)
        #expect(status.body.contains(#""gatt_registered":true"#) && status.body.contains(#""wake_subscriber":true"#))

        // A process on the board may not open the pairing window (the phone on the link may: below).
        let pairing = try RawHTTP.loopback(port: port, "POST", "/api/bluetooth/pairing/start", body: #"{"seconds":60}"#)
        #expect(pairing.status == 403 && pairing.body.contains(#""code":"not_ecm_peer""#), "\(pairing.body)")
        #expect(!fake.allLines.contains("set Pairable true"), "refused before the adapter was touched")

        // bluetoothd crashes and returns: the daemon registers again and later writes arrive.
        fake.stop()
        let restarted = try await FakeBluetoothd.start(bus: bus, role: "board")
        defer { restarted.stop() }
        try await restarted.waitFor("registration again") { $0.contains("start-notify-ok") }
        let answer = try RawHTTP.unix(
            scratch + "/agent.sock", "POST", "/v1/tasks",
            body: #"{"task_title":"After the crash","request_id":"chat_bluez_9"}"#)
        #expect(answer.status == 201)
        let after = try await restarted.waitFor("a Wake after the restart") {
            BoardPeripheralIntegrationTests.values($0).contains { $0.reason == .liveActivity }
        }
        let next = BoardPeripheralIntegrationTests.values(after).filter { $0.reason == .liveActivity }
        #expect(next.allSatisfy { $0.sequence > (sequences.last ?? 0) })
    }

    /// On a real link (network namespaces): the phone's request opens the window on the adapter, exactly as the
    /// phone client and the real-stack scenario send it; the board itself, a web page and a form post cannot;
    /// the window survives bluetoothd's restart.
    @Test(.enabled(if: NetworkLab.available, NetworkLab.why))
    func thePhoneOnTheLinkOpensThePairingWindowAcrossACrash() async throws {
        let lab = try NetworkLab.up()
        defer { lab.down() }
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let scratch = try scratchWithConfig(listen: ["192.168.42.1:8080", "127.0.0.1:8080"], interface: "eth0")
        defer { _ = system("rm -rf '\(scratch)'") }
        let fake = try await FakeBluetoothd.start(bus: bus, role: "board")
        let board = try BoardBinary(
            arguments: ["--config", scratch + "/board.toml"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "PATH": "/usr/bin:/bin"],
            log: scratch + "/board.log", wrapper: lab.wrapper(lab.board))
        defer { board.kill9() }
        try await fake.waitFor("registration") { $0.contains("start-notify-ok") }
        let url = "http://192.168.42.1:8080/api/bluetooth/pairing/start"
        let json = ["-X", "POST", "-H", "Content-Type: application/json", "-d", #"{"seconds":60}"#]
        try await eventually("the board's HTTP listener") { (try? lab.curl(from: lab.phone, [url]))?.status == 405 }

        let refusals: [(String, [String], Int, String)] = [
            (lab.board, json + [url], 403, "not_ecm_peer"),
            (lab.board, json + ["http://127.0.0.1:8080/api/bluetooth/pairing/start"], 403, "not_ecm_peer"),
            // Outside the allowed subnets: refused when the connection opens, answered 403 before anything else.
            (lab.outsider, json + [url], 403, "forbidden"),
            (lab.phone, json + ["-H", "Origin: http://evil.example", url], 403, "cross_site"),
            (lab.phone, json + ["-H", "Sec-Fetch-Site: cross-site", url], 403, "cross_site"),
            // What an HTML form can send.
            (lab.phone, ["-X", "POST", "-d", "seconds=60", url], 415, "unsupported_media_type"),
            (
                lab.phone, ["-X", "POST", "-H", "Content-Type: text/plain", "-d", #"{"seconds":60}"#, url], 415,
                "unsupported_media_type"
            ),
        ]
        for (namespace, arguments, status, code) in refusals {
            let answer = try lab.curl(from: namespace, arguments)
            let named = code.isEmpty ? !answer.body.contains("code") : answer.body.contains(#""code":"\#(code)""#)
            #expect(answer.status == status && named, "\(namespace) \(arguments): \(answer.status) \(answer.body)")
        }
        #expect(!fake.allLines.contains("set Pairable true"), "no refused request touched the adapter")

        let opened = try lab.curl(from: lab.phone, json + [url])
        #expect(opened.status == 200, "\(opened.body)")
        #expect(opened.body.contains(#""open":true"#) && opened.body.contains(#""closes_at""#))
        try await fake.waitFor("pairable") { $0.contains("set PairableTimeout 60") && $0.contains("set Pairable true") }

        // bluetoothd crashes and returns: the window survives, the policy step makes the new one pairable again.
        fake.stop()
        let restarted = try await FakeBluetoothd.start(bus: bus, role: "board")
        defer { restarted.stop() }
        try await restarted.waitFor("pairable on the new bluetoothd") { $0.contains("set Pairable true") }
    }
}
