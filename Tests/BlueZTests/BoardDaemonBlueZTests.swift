import Glibc
import TestSupport
import Testing
import WakeProtocol

/// The aiden-board executable with `[wake] transport = "bluez"` on a private "system bus" with the fake
/// bluetoothd: agent writes become 12-byte notifications with increasing sequences, across a bluetoothd
/// crash; the pairing route reaches the adapter.
@Suite(
    "aiden-board with the bluez transport", .serialized,
    .enabled(if: FakeBluetoothd.available && BoardBinary.path != nil, "needs the fake bluetoothd and aiden-board"))
struct BoardDaemonBlueZTests {
    @Test func agentWritesReachTheFakeBluetoothdAcrossACrash() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        var template = Array("/tmp/aiden-bluez-board-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw RawHTTP.Failure(description: "mkdtemp") }
        let scratch = String(cString: made)
        defer { _ = system("rm -rf '\(scratch)'") }
        let port = try RawHTTP.freeLoopbackPort()
        let config = """
            [http]
            listen = ["127.0.0.1:\(port)"]
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

        let pairing = try RawHTTP.loopback(port: port, "POST", "/api/bluetooth/pairing/start", body: #"{"seconds":60}"#)
        #expect(pairing.status == 200, "\(pairing.body)")
        #expect(pairing.body.contains(#""open":true"#) && pairing.body.contains(#""closes_at""#))
        try await fake.waitFor("pairable") { $0.contains("set PairableTimeout 60") && $0.contains("set Pairable true") }

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
        // The pairing window survives bluetoothd's restart: the policy step makes the new one pairable again.
        try await restarted.waitFor("pairable on the new bluetoothd") { $0.contains("set Pairable true") }
    }
}
