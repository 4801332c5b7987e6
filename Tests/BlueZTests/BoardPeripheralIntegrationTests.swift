import BlueZ
import BoardService
import DBus
import DBusModel
import Platform
import Retry
import Synchronization
import TestSupport
import Testing
import WakeProtocol

/// The board's BLE Wake transport (BlueZWakeSink → GattPeripheral → libdbus) against a fake bluetoothd
/// process on a private dbus-daemon: registration as bluetoothd checks it, notifications, a bluetoothd crash.
@Suite(
    "Board peripheral on a private bus", .serialized,
    .enabled(if: FakeBluetoothd.available, FakeBluetoothd.skipMessage))
struct BoardPeripheralIntegrationTests {
    static let epoch: UInt16 = 0x1234

    func makeSink(_ bus: PrivateBus) throws -> (BlueZWakeSink, LogCapture) {
        let (logger, logs) = Logger.capturing(component: "board", minimumLevel: .debug)
        let sink = try BlueZWakeSink(
            settings: BlueZWakeSink.Settings(
                adapter: "hci0", characteristicFlags: ["encrypt-read", "notify"], address: .address(bus.address),
                reconnect: Backoff(base: .milliseconds(100), cap: .seconds(1))),
            initialValue: WakeEnvelope(reason: .system, epoch: Self.epoch, sequence: 10),
            runtime: SerialRuntime(label: "test.sink"), logger: logger)
        return (sink, logs)
    }

    static func values(_ lines: [String]) -> [WakeEnvelope] {
        lines.compactMap { line -> WakeEnvelope? in
            guard line.hasPrefix("value ") else { return nil }
            let hex = Array(line.dropFirst(6).utf8)
            guard hex.count == 24 else { return nil }
            var bytes: [UInt8] = []
            for index in stride(from: 0, to: 24, by: 2) {
                guard let byte = UInt8(String(decoding: hex[index..<index + 2], as: UTF8.self), radix: 16) else {
                    return nil
                }
                bytes.append(byte)
            }
            return try? WakeEnvelope(bytes: bytes)
        }
    }

    @Test func registersNotifiesAndRegistersAgainAfterACrash() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let fake = try await FakeBluetoothd.start(bus: bus, role: "board")
        let (sink, logs) = try makeSink(bus)
        defer { Task { await sink.stop() } }
        // What the board's status line is told, each time: (bluetoothd running, a phone subscribed).
        let told = Mutex<[(running: Bool?, subscribed: Bool)]>([])
        sink.observeFacts { [sink] in
            let facts = sink.bluetoothFacts()
            told.withLock { $0.append((facts.bluezRunning, facts.wakeSubscriber)) }
        }

        let lines = try await fake.waitFor("registration") { lines in
            lines.contains("start-notify-ok") && lines.contains { $0.hasPrefix("advertisement ") }
        }
        #expect(lines.contains("set Discoverable false") && lines.contains("set Pairable false"))
        #expect(lines.contains("agent RegisterAgent /org/aidenbridge/agent NoInputNoOutput"))
        #expect(lines.contains { $0.hasPrefix("registered-application ") && $0.hasSuffix(" /org/aidenbridge/wake") })
        #expect(
            lines.contains(
                "advertisement Discoverable=false;LocalName=Aiden-1234;ManufacturerData=ffff:00aa01001234;"
                    + "ServiceUUIDs=a1de0001-7c4b-4f52-8d9a-6b4f6e6f7469;Type=peripheral"), "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("rejected-application") })
        try await eventually("registered and subscribed") {
            let facts = sink.bluetoothFacts()
            return facts.gattRegistered && facts.advertising && facts.wakeSubscriber
        }
        let facts = sink.bluetoothFacts()
        #expect(facts.bluezRunning == true && facts.powered == true && facts.address == "00:AA:01:00:12:34")

        for sequence in UInt64(11)...15 {
            let result = sink.send(WakeEnvelope(reason: .liveActivity, epoch: Self.epoch, sequence: sequence))
            #expect(throws: Never.self) { try result.get() }
        }
        let first = try await fake.waitFor("five values") { Self.values($0).count >= 5 }
        #expect(Self.values(first).map(\.sequence) == [11, 12, 13, 14, 15])
        #expect(Self.values(first).allSatisfy { $0.epoch == Self.epoch && $0.reason == .liveActivity })

        // bluetoothd crashes: the board notices (NameOwnerChanged) and says so.
        fake.stop()
        try await eventually("bluetoothd gone") { sink.bluetoothFacts().bluezRunning == false }
        #expect(!sink.bluetoothFacts().gattRegistered && !sink.bluetoothFacts().wakeSubscriber)
        try await eventually("the observer told bluetoothd is gone") {
            told.withLock { $0.last.map { $0.running == false && !$0.subscribed } ?? false }
        }
        told.withLock { $0.removeAll() }
        #expect(throws: WakeSinkError.self) {
            try sink.send(WakeEnvelope(reason: .liveActivity, epoch: Self.epoch, sequence: 16)).get()
        }

        // bluetoothd comes back: everything is registered again, quickly, and later Wakes reach it.
        let clock = ContinuousClock()
        let restarted = try await FakeBluetoothd.start(bus: bus, role: "board")
        defer { restarted.stop() }
        let back = clock.now
        try await restarted.waitFor("registration again") { lines in
            lines.contains("start-notify-ok") && lines.contains { $0.hasPrefix("advertisement ") }
        }
        try await eventually("registered again", diagnostics: { logs.lines.joined(separator: "\n") }) {
            sink.bluetoothFacts().advertising
        }
        // The phone's StartNotify to the new bluetoothd reaches the observer: nothing needs to look on a timer.
        try await eventually("the observer told a phone subscribed again") {
            told.withLock { $0.contains { $0.running == true && $0.subscribed } }
        }
        // The path from NameOwnerChanged to registered has no timer (see the transcript test); here the bound is
        // loose because the suite shares two cores, and the measured time is in the message.
        #expect(clock.now - back < .seconds(15), "re-registered \(clock.now - back) after bluetoothd returned")
        for sequence in UInt64(17)...18 {
            _ = sink.send(WakeEnvelope(reason: .liveActivity, epoch: Self.epoch, sequence: sequence))
        }
        let later = try await restarted.waitFor("values after the restart") { Self.values($0).count >= 2 }
        #expect(Self.values(later).map(\.sequence) == [17, 18])
        #expect(logs.lines.contains { $0.contains("bluetoothd left the bus") })

        // The phone stops notifications and starts them again (its CCCD writes, as StopNotify and StartNotify on
        // the characteristic): each reaches the observer by itself, with no lifecycle event beside it.
        let control = try await DBusConnection.connect(to: .address(bus.address))
        defer { control.close() }
        for on in [false, true] {
            told.withLock { $0.removeAll() }
            _ = try await control.call(
                destination: "org.bluez", path: "/org/aidenbridge/fake", interface: "org.aidenbridge.FakeBlueZ1",
                member: "SetNotifying", [.boolean(on)])
            try await eventually("the observer told subscribed = \(on)") {
                told.withLock { $0.last.map { $0.subscribed == on } ?? false }
            }
        }
    }

    @Test func powerCycleRegistersAgain() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let fake = try await FakeBluetoothd.start(bus: bus, role: "board")
        defer { fake.stop() }
        let (sink, _) = try makeSink(bus)
        defer { Task { await sink.stop() } }
        try await eventually("registered") { sink.bluetoothFacts().advertising }

        let control = try await DBusConnection.connect(to: .address(bus.address))
        defer { control.close() }
        _ = try await control.call(
            destination: "org.bluez", path: "/org/aidenbridge/fake", interface: "org.aidenbridge.FakeBlueZ1",
            member: "SetPowered", [.boolean(false)])
        try await eventually("powered off") { sink.bluetoothFacts().powered == false }
        #expect(!sink.bluetoothFacts().advertising)
        _ = try await control.call(
            destination: "org.bluez", path: "/org/aidenbridge/fake", interface: "org.aidenbridge.FakeBlueZ1",
            member: "SetPowered", [.boolean(true)])
        try await eventually("registered after power on") { sink.bluetoothFacts().advertising }
        // The fake, like bluetoothd, kept the registrations: the second attempt is answered AlreadyExists.
        let lines = try await fake.waitFor("the registration line") {
            $0.contains { $0.hasPrefix("registered-application") }
        }
        let registrations = lines.filter { $0.hasPrefix("registered-application") }
        #expect(registrations.count == 1)
    }
}
