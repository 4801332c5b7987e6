import BlueZ
import DBus
import DBusModel
import Platform
import Retry
import Synchronization
import TestSupport
import Testing
import WakeProtocol

/// The phone's Wake central over libdbus against a fake bluetoothd process that shows a board: discovery,
/// connect, one StartNotify per link, values; a dropped link reconnects; a lost bond is reported.
@Suite(
    "Wake central on a private bus", .serialized,
    .enabled(if: FakeBluetoothd.available, FakeBluetoothd.skipMessage))
struct CentralIntegrationTests {
    final class Recorder: Sendable {
        let values = Mutex<[WakeEnvelope]>([])
        let states = Mutex<[CentralState]>([])

        var lastState: CentralState? { states.withLock { $0.last } }
        var received: [WakeEnvelope] { values.withLock { $0 } }
    }

    func startCentral(
        _ bus: PrivateBus, _ recorder: Recorder, logger: Logger = Logger.capturing().0
    ) async throws -> (WakeCentral, DBusConnection) {
        let connection = try await DBusConnection.connect(to: .address(bus.address))
        let central = WakeCentral(
            bus: connection,
            configuration: WakeCentral.Configuration(
                adapter: "hci0", backoff: Backoff(base: .milliseconds(200), cap: .seconds(1)),
                bondLostRetry: .seconds(60)),
            runtime: SerialRuntime(label: "test.central"), logger: logger)
        try await central.start(
            deliver: { bytes in
                if let envelope = try? WakeEnvelope(bytes: bytes) { recorder.values.withLock { $0.append(envelope) } }
            },
            state: { state in recorder.states.withLock { $0.append(state) } })
        return (central, connection)
    }

    @Test func discoversConnectsReceivesAndReconnects() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let fake = try await FakeBluetoothd.start(bus: bus, role: "phone")
        defer { fake.stop() }
        let recorder = Recorder()
        let (logger, logs) = Logger.capturing(component: "phone", minimumLevel: .debug)
        let (central, connection) = try await startCentral(bus, recorder, logger: logger)
        defer { connection.close() }

        try await eventually(
            "the read echo and three notifications",
            diagnostics: {
                "fake:\n" + fake.allLines.joined(separator: "\n") + "\ncentral:\n" + logs.lines.joined(separator: "\n")
            }
        ) {
            recorder.received.count >= 4
        }
        let lines = try await fake.waitFor("the read") { $0.contains("call ReadValue") }
        #expect(
            lines.prefix(2) == [
                "call SetDiscoveryFilter UUIDs=a1de0001-7c4b-4f52-8d9a-6b4f6e6f7469 Transport=le",
                "call StartDiscovery",
            ])
        #expect(lines.contains("call StopDiscovery"))
        #expect(lines.filter { $0.hasPrefix("call StartNotify") }.count == 1)
        #expect(lines.filter { $0 == "call ReadValue" }.count == 1)
        // The read echoes the last Wake (100, or a later one when a notification won the race: then the echo is
        // a duplicate the phone's wake filter drops); apart from that echo, sequences only increase.
        let sequences = recorder.received.map(\.sequence)
        #expect((sequences.first ?? 0) >= 100)
        let increasingWithoutOne = sequences.indices.contains { echo in
            var rest = sequences
            rest.remove(at: echo)
            return zip(rest, rest.dropFirst()).allSatisfy { $0 < $1 }
        }
        #expect(increasingWithoutOne, "apart from the one read echo, sequences increase: \(sequences)")
        // The state callback may trail the values it let through: wait for it rather than race it.
        try await eventually("subscribed") { recorder.lastState == .subscribed(address: "00:AA:01:00:12:34") }

        // The board goes away and comes back: a new link, a new (single) StartNotify, values again.
        let control = try await DBusConnection.connect(to: .address(bus.address))
        defer { control.close() }
        _ = try await control.call(
            destination: "org.bluez", path: "/org/aidenbridge/fake", interface: "org.aidenbridge.FakeBlueZ1",
            member: "DropConnection")
        try await eventually("reconnecting") {
            recorder.states.withLock { $0.contains { if case .reconnecting = $0 { true } else { false } } }
        }
        let before = recorder.received.count
        try await eventually("values on the new link") {
            fake.allLines.filter { $0.hasPrefix("call StartNotify") }.count == 2
                && recorder.received.count >= before + 3
        }
        #expect(fake.allLines.filter { $0.hasPrefix("call Connect") }.count == 2)
        #expect(central.facts.connections == 2)

        // A value of the wrong length is not delivered.
        let count = recorder.received.count
        _ = try await control.call(
            destination: "org.bluez", path: "/org/aidenbridge/fake", interface: "org.aidenbridge.FakeBlueZ1",
            member: "Notify", [.bytes([1, 2, 3])])
        try await eventually("the bad value noticed") { central.facts.problem?.contains("3 bytes") == true }
        #expect(recorder.received.allSatisfy { $0.epoch == 0x1234 })
        #expect(recorder.received.count >= count)
        await central.stop()
        try await fake.waitFor("disconnect on stop") { $0.contains { $0.hasPrefix("call Disconnect") } }
    }

    @Test func lostBondIsReportedAndNotRetriedInALoop() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let fake = try await FakeBluetoothd.start(bus: bus, role: "phone", extra: ["--bond-lost"])
        defer { fake.stop() }
        let recorder = Recorder()
        let (central, connection) = try await startCentral(bus, recorder)
        defer { connection.close() }
        try await eventually("bond lost") {
            if case .bondLost = recorder.lastState { true } else { false }
        }
        #expect(recorder.lastState == .bondLost(address: "00:AA:01:00:12:34", retryIn: .seconds(60)))
        let lines = try await fake.waitFor("the Connect") { $0.contains { $0.hasPrefix("call Connect") } }
        #expect(lines.filter { $0.hasPrefix("call Connect") }.count == 1)
        #expect(recorder.received.isEmpty)
        await central.stop()
    }

    @Test func bluetoothdRestartRebuilds() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let fake = try await FakeBluetoothd.start(bus: bus, role: "phone")
        let recorder = Recorder()
        let (central, connection) = try await startCentral(bus, recorder)
        defer { connection.close() }
        try await eventually("subscribed") { recorder.received.count >= 2 }
        fake.stop()
        try await eventually("bluetoothd gone") { recorder.lastState == .waitingForBlueZ }
        let before = recorder.received.count
        let again = try await FakeBluetoothd.start(bus: bus, role: "phone")
        defer { again.stop() }
        try await eventually("values from the new bluetoothd") { recorder.received.count >= before + 2 }
        let lines = try await again.waitFor("the StartNotify") { $0.contains { $0.hasPrefix("call StartNotify") } }
        #expect(lines.filter { $0.hasPrefix("call StartNotify") }.count == 1)
        await central.stop()
    }
}
