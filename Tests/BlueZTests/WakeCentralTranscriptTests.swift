import DBusModel
import NetworkAddress
import Platform
import Synchronization
import TestSupport
import Testing
import WakeProtocol

@testable import BlueZ

/// The phone's Wake central against the in-memory bus: exact calls, states and deliveries.
@Suite("WakeCentral transcripts")
struct WakeCentralTranscriptTests {
    static let adapterPath: DBusObjectPath = "/org/bluez/hci0"
    static let device: DBusObjectPath = "/org/bluez/hci0/dev_00_AA_01_00_12_34"
    static let service: DBusObjectPath = "/org/bluez/hci0/dev_00_AA_01_00_12_34/service000a"
    static let characteristic: DBusObjectPath = "/org/bluez/hci0/dev_00_AA_01_00_12_34/service000a/char000b"
    static let boardAddress = "00:AA:01:00:12:34"

    static let search = [
        "call org.bluez /org/bluez/hci0 org.bluez.Adapter1.SetDiscoveryFilter({'Transport': <'le'>, "
            + "'UUIDs': <['a1de0001-7c4b-4f52-8d9a-6b4f6e6f7469']>})",
        "call org.bluez /org/bluez/hci0 org.bluez.Adapter1.StartDiscovery()",
    ]
    static let connect = [
        "call org.bluez /org/bluez/hci0 org.bluez.Adapter1.StopDiscovery()",
        "call org.bluez /org/bluez/hci0/dev_00_AA_01_00_12_34 org.bluez.Device1.Connect()",
    ]
    static let subscribe = [
        "call org.bluez \(characteristic) org.bluez.GattCharacteristic1.StartNotify()",
        "call org.bluez \(characteristic) org.bluez.GattCharacteristic1.ReadValue(@a{sv} {})",
    ]
    static let getManagedObjects = "call org.bluez / org.freedesktop.DBus.ObjectManager.GetManagedObjects()"

    static func wake(_ sequence: UInt64) -> [UInt8] {
        WakeEnvelope(reason: .liveActivity, epoch: 0x1234, sequence: sequence).bytes
    }

    /// A `Device1` as bluetoothd shows a board it sees; `identity`: the advertisement carries the board's
    /// identity (its own address under manufacturer 0xFFFF), as every AidenBridge board's does.
    static func deviceProperties(
        address: String = boardAddress, uuids: [String] = [WakeGATT.serviceUUID],
        connected: Bool = false, resolved: Bool = false, paired: Bool = true, identity: Bool = true
    ) -> [String: [String: DBusValue]] {
        var properties: [String: DBusValue] = [
            "Address": .string(address), "UUIDs": .strings(uuids), "RSSI": .int16(-50),
            "Connected": .boolean(connected), "ServicesResolved": .boolean(resolved), "Paired": .boolean(paired),
        ]
        if identity {
            let bytes = BluetoothAddress(address)?.bytes ?? []
            properties["ManufacturerData"] = .variantDictionary(
                key: .uint16, [(.uint16(WakeGATT.manufacturerID), .bytes(bytes))])
        }
        return [BlueZNames.device: properties]
    }

    /// A central on the fake bus; it records what it delivers and reports.
    final class Fixture: Sendable {
        let bluez = FakeBlueZ()
        let runtime = ManualRuntime()
        let central: WakeCentral
        let delivered = Mutex<[[UInt8]]>([])
        let states = Mutex<[CentralState]>([])
        let problems = Mutex<[String]>([])

        init(
            boardAddress: String? = nil, tree: DBusManagedObjects = [adapterPath: FakeBlueZ.adapter()],
            cable: (any PairingCable)? = nil
        ) {
            central = WakeCentral(
                bus: bluez.bus, configuration: WakeCentral.Configuration(adapter: "hci0", boardAddress: boardAddress),
                runtime: runtime, logger: Logger.capturing().0, cable: cable)
            for (path, object) in tree { bluez.setObject(path, object) }
            bluez.bus.respond(to: "ReadValue") { _ in [.bytes(WakeCentralTranscriptTests.wake(7))] }
            bluez.bus.respond(to: "Disconnect") { _ in [] }
            bluez.setRunning(FakeBlueZ.owner)
        }

        func start() async throws {
            try await central.start(
                deliver: { [weak self] value in self?.delivered.withLock { $0.append(value) } },
                state: { [weak self] state in self?.states.withLock { $0.append(state) } },
                problem: { [weak self] text in self?.problems.withLock { $0.append(text) } })
            await runtime.drain()
        }

        func takeCalls() -> [String] {
            defer { bluez.bus.clearTranscript() }
            return bluez.callLines
        }

        func takeStates() -> [CentralState] {
            states.withLock { list in
                defer { list = [] }
                return list
            }
        }

        func takeDelivered() -> [[UInt8]] {
            delivered.withLock { list in
                defer { list = [] }
                return list
            }
        }

        /// The board shows up in discovery (`paired`: with a bond on this host).
        func advertise(paired: Bool = true) async {
            bluez.interfacesAdded(
                WakeCentralTranscriptTests.device, WakeCentralTranscriptTests.deviceProperties(paired: paired))
            await runtime.drain()
        }

        /// bluetoothd resolves the board's services after Connect.
        func resolveServices() async {
            bluez.interfacesAdded(
                WakeCentralTranscriptTests.service,
                [
                    BlueZNames.gattService: [
                        "UUID": .string(WakeGATT.serviceUUID), "Device": .objectPath(WakeCentralTranscriptTests.device),
                    ]
                ])
            bluez.interfacesAdded(
                WakeCentralTranscriptTests.characteristic,
                [
                    BlueZNames.gattCharacteristic: [
                        "UUID": .string(WakeGATT.characteristicUUID),
                        "Service": .objectPath(WakeCentralTranscriptTests.service),
                    ]
                ])
            bluez.propertiesChanged(
                WakeCentralTranscriptTests.device, interface: BlueZNames.device,
                ["Connected": .boolean(true), "ServicesResolved": .boolean(true)])
            await runtime.drain()
        }

        func notify(_ value: [UInt8]) async {
            bluez.propertiesChanged(
                WakeCentralTranscriptTests.characteristic, interface: BlueZNames.gattCharacteristic,
                ["Value": .bytes(value)])
            await runtime.drain()
        }

        func disconnect() async {
            bluez.propertiesChanged(
                WakeCentralTranscriptTests.device, interface: BlueZNames.device,
                ["ServicesResolved": .boolean(false)])
            bluez.interfacesRemoved(WakeCentralTranscriptTests.characteristic, [BlueZNames.gattCharacteristic])
            bluez.interfacesRemoved(WakeCentralTranscriptTests.service, [BlueZNames.gattService])
            bluez.propertiesChanged(
                WakeCentralTranscriptTests.device, interface: BlueZNames.device,
                ["Connected": .boolean(false)])
            await runtime.drain()
        }

        /// Searching, found, connected, subscribed: the happy path up to the first delivered read.
        func subscribe() async throws {
            try await start()
            await advertise()
            await resolveServices()
        }
    }

    /// No board in 3 s: the search starts over, StopDiscovery answered before the filter and StartDiscovery are
    /// sent again (bluetoothd answers a start during a pending stop with Busy); the board then found as ever.
    @Test func aSearchStartsOverInTurn() async throws {
        let fixture = Fixture()
        try await fixture.start()
        #expect(
            fixture.takeCalls() == [GattPeripheralTranscriptTests.getNameOwner, Self.getManagedObjects] + Self.search)
        #expect(fixture.takeStates() == [.searching])
        await fixture.runtime.advance(to: .seconds(3))
        #expect(
            fixture.takeCalls() == ["call org.bluez /org/bluez/hci0 org.bluez.Adapter1.StopDiscovery()"] + Self.search)
        #expect(fixture.takeStates().isEmpty, "still searching, no new state")
        #expect(fixture.runtime.pendingTimers.count == 1, "the next restart, 6 s after this start")
        await fixture.advertise()
        #expect(fixture.takeCalls() == Self.connect)
    }

    @Test func discoversConnectsSubscribesOnceAndDelivers() async throws {
        let fixture = Fixture()
        try await fixture.start()
        #expect(
            fixture.takeCalls() == [GattPeripheralTranscriptTests.getNameOwner, Self.getManagedObjects] + Self.search)
        #expect(fixture.takeStates() == [.searching])

        // A device that is not the board does not interest us.
        fixture.bluez.interfacesAdded(
            "/org/bluez/hci0/dev_11_22_33_44_55_66",
            Self.deviceProperties(address: "11:22:33:44:55:66", uuids: ["0000180f-0000-1000-8000-00805f9b34fb"]))
        await fixture.runtime.drain()
        #expect(fixture.takeCalls().isEmpty)

        await fixture.advertise()
        #expect(fixture.takeCalls() == Self.connect)
        #expect(fixture.takeStates() == [.connecting(address: Self.boardAddress)])

        await fixture.resolveServices()
        #expect(fixture.takeCalls() == Self.subscribe)
        #expect(
            fixture.takeStates() == [.subscribing(address: Self.boardAddress), .subscribed(address: Self.boardAddress)])
        #expect(fixture.takeDelivered() == [Self.wake(7)], "the read echoes the last Wake")

        await fixture.notify(Self.wake(8))
        await fixture.notify(Self.wake(9))
        #expect(fixture.takeDelivered() == [Self.wake(8), Self.wake(9)])
        await fixture.notify([1, 2, 3, 4, 5])
        #expect(fixture.takeDelivered().isEmpty)
        #expect(fixture.problems.withLock { $0 } == ["ignored a Wake value of 5 bytes (expected 12)"])

        // ServicesResolved again on the same link (a service-changed indication): never a second StartNotify.
        fixture.bluez.propertiesChanged(Self.device, interface: BlueZNames.device, ["ServicesResolved": .boolean(true)])
        await fixture.runtime.drain()
        #expect(fixture.takeCalls().isEmpty)
        #expect(fixture.central.facts.connections == 1 && fixture.central.facts.valuesDelivered == 3)
        #expect(fixture.runtime.pendingTimers.isEmpty, "subscribed and idle: no timer")
    }

    @Test func disconnectReconnectsWithBackoffAndSubscribesOncePerLink() async throws {
        let fixture = Fixture()
        try await fixture.subscribe()
        _ = fixture.takeCalls()
        _ = fixture.takeStates()
        _ = fixture.takeDelivered()

        await fixture.disconnect()
        #expect(fixture.takeCalls().isEmpty)
        #expect(fixture.takeStates() == [.reconnecting(retryIn: .seconds(1))])
        #expect(fixture.runtime.pendingTimers == [.seconds(1)])
        await fixture.notify(Self.wake(10))
        #expect(fixture.takeDelivered().isEmpty, "no values from a dropped link")

        await fixture.runtime.advance(to: .seconds(1))
        #expect(fixture.takeCalls() == Self.search)
        // The board is known; bluetoothd reports its advertisement as an RSSI change.
        fixture.bluez.propertiesChanged(Self.device, interface: BlueZNames.device, ["RSSI": .int16(-40)])
        await fixture.runtime.drain()
        #expect(fixture.takeCalls() == Self.connect)
        await fixture.resolveServices()
        #expect(fixture.takeCalls() == Self.subscribe)
        #expect(
            fixture.takeStates() == [
                .searching, .connecting(address: Self.boardAddress), .subscribing(address: Self.boardAddress),
                .subscribed(address: Self.boardAddress),
            ])
        #expect(fixture.central.facts.connections == 2)
        // Two links, two StartNotify calls (one each), and values flow again on the new link.
        await fixture.notify(Self.wake(11))
        #expect(fixture.takeDelivered() == [Self.wake(7), Self.wake(11)])
    }

    @Test func failedConnectsBackOffToTheCap() async throws {
        let fixture = Fixture()
        try await fixture.start()
        var expected: [Duration] = []
        var now = Duration.zero
        for attempt in 1...8 {
            fixture.bluez.bus.enqueueReply(to: "Connect", .failure(.bluez(.failed, "le-connection-abort-by-local")))
            if attempt == 1 {
                await fixture.advertise()
            } else {
                fixture.bluez.propertiesChanged(Self.device, interface: BlueZNames.device, ["RSSI": .int16(-40)])
                await fixture.runtime.drain()
            }
            let delay = fixture.runtime.pendingTimers.first.map { $0 - now } ?? .zero
            expected.append(delay)
            now += delay
            await fixture.runtime.advance(to: now)
        }
        #expect(expected == [1, 2, 4, 8, 16, 32, 60, 60].map { Duration.seconds($0) })
    }

    @Test func bondLostIsAClearSlowState() async throws {
        let fixture = Fixture()
        try await fixture.start()
        _ = fixture.takeStates()
        fixture.bluez.bus.enqueueReply(to: "Connect", .failure(.bluez(.authenticationFailed, "Authentication Failed")))
        await fixture.advertise()
        #expect(
            fixture.takeStates() == [
                .connecting(address: Self.boardAddress), .bondLost(address: Self.boardAddress, retryIn: .seconds(300)),
            ])
        #expect(fixture.runtime.pendingTimers == [.seconds(300)])
        _ = fixture.takeCalls()
        await fixture.runtime.advance(to: .seconds(299))
        #expect(fixture.takeCalls().isEmpty, "no tight retry loop")
        await fixture.runtime.advance(to: .seconds(300))
        #expect(fixture.takeCalls() == Self.search)

        // The same from StartNotify: an ATT "insufficient encryption" answer.
        fixture.bluez.bus.enqueueReply(
            to: "StartNotify", .failure(.bluez(.failed, "Operation failed with ATT error: 0x0f")))
        fixture.bluez.propertiesChanged(Self.device, interface: BlueZNames.device, ["RSSI": .int16(-40)])
        await fixture.runtime.drain()
        await fixture.resolveServices()
        #expect(
            fixture.takeCalls() == Self.connect + [
                Self.subscribe[0], "call org.bluez \(Self.device) org.bluez.Device1.Disconnect()",
            ])
        #expect(fixture.takeStates().last == .bondLost(address: Self.boardAddress, retryIn: .seconds(300)))
    }

    @Test func bluetoothdRestartRebuildsEverything() async throws {
        let fixture = Fixture()
        try await fixture.subscribe()
        _ = fixture.takeCalls()
        _ = fixture.takeStates()
        _ = fixture.takeDelivered()
        fixture.bluez.setRunning(nil)
        await fixture.runtime.drain()
        #expect(fixture.takeStates() == [.waitingForBlueZ])
        #expect(fixture.takeCalls().isEmpty)
        await fixture.notify(Self.wake(20))
        #expect(fixture.takeDelivered().isEmpty)

        fixture.bluez.setRunning(":1.9")
        await fixture.runtime.drain()
        #expect(fixture.takeCalls() == [Self.getManagedObjects] + Self.search)
        await fixture.advertise()
        await fixture.resolveServices()
        #expect(fixture.takeCalls() == Self.connect + Self.subscribe)
        #expect(fixture.takeStates().last == .subscribed(address: Self.boardAddress))
    }

    /// A unicast `PropertiesChanged` with a forged Wake of sequence 2⁶⁴−1 must not reach the phone's filter,
    /// which would then drop every real Wake of that epoch.
    @Test func spoofedWakeFromAnotherSenderIsIgnored() async throws {
        let fixture = Fixture()
        try await fixture.subscribe()
        _ = fixture.takeDelivered()
        fixture.bluez.propertiesChanged(
            Self.characteristic, interface: BlueZNames.gattCharacteristic, ["Value": .bytes(Self.wake(.max))],
            sender: ":1.66")
        fixture.bluez.propertiesChanged(
            Self.adapterPath, interface: BlueZNames.adapter, ["Powered": .boolean(false)], sender: ":1.66")
        await fixture.runtime.drain()
        #expect(fixture.takeDelivered().isEmpty)
        #expect(!fixture.takeStates().contains(.waitingForAdapter("hci0")))
        await fixture.notify(Self.wake(30))
        #expect(fixture.takeDelivered() == [Self.wake(30)])
    }

    @Test func adapterPowerCycleRebuilds() async throws {
        let fixture = Fixture()
        try await fixture.subscribe()
        _ = fixture.takeCalls()
        _ = fixture.takeStates()
        _ = fixture.takeDelivered()
        fixture.bluez.propertiesChanged(Self.adapterPath, interface: BlueZNames.adapter, ["Powered": .boolean(false)])
        await fixture.runtime.drain()
        #expect(fixture.takeStates() == [.waitingForAdapter("hci0")])
        await fixture.notify(Self.wake(21))
        #expect(fixture.takeDelivered().isEmpty)
        fixture.bluez.propertiesChanged(Self.adapterPath, interface: BlueZNames.adapter, ["Powered": .boolean(true)])
        await fixture.runtime.drain()
        #expect(fixture.takeCalls() == Self.search)
        #expect(fixture.takeStates() == [.searching])
    }

    /// Nothing configured, no cable: a device that only copies the Wake UUID (no bond, no identity of its own)
    /// is not followed; a board advertising its own identity is, and the bonded board comes before it.
    @Test func onlyABondedBoardOrOneWithItsOwnIdentityIsFollowed() async throws {
        let fixture = Fixture()
        try await fixture.start()
        _ = fixture.takeCalls()
        let stranger: DBusObjectPath = "/org/bluez/hci0/dev_00_AA_01_00_66_66"
        fixture.bluez.interfacesAdded(
            stranger, Self.deviceProperties(address: "00:AA:01:00:66:66", paired: false, identity: false))
        await fixture.runtime.drain()
        #expect(fixture.takeCalls().isEmpty, "a Wake UUID alone proves nothing")

        // The same device now advertises another board's identity: still not a board.
        fixture.bluez.propertiesChanged(
            stranger, interface: BlueZNames.device,
            [
                "ManufacturerData": .variantDictionary(
                    key: .uint16, [(.uint16(WakeGATT.manufacturerID), .bytes([0x00, 0xAA, 0x01, 0x00, 0x12, 0x34]))])
            ])
        await fixture.runtime.drain()
        #expect(fixture.takeCalls().isEmpty, "a copied identity is not its own")

        // A new board, not bonded, advertising its own address as its identity, and the bonded board at once.
        let fresh: DBusObjectPath = "/org/bluez/hci0/dev_00_AA_01_00_00_01"
        fixture.bluez.setObject(fresh, Self.deviceProperties(address: "00:AA:01:00:00:01", paired: false))
        fixture.bluez.setObject(Self.device, Self.deviceProperties())
        fixture.bluez.setRunning(":1.9")
        await fixture.runtime.drain()
        let calls = fixture.takeCalls()
        #expect(calls.contains("call org.bluez \(Self.device) org.bluez.Device1.Connect()"), "the bonded board first")
        #expect(!calls.contains { $0.contains("dev_00_AA_01_00_00_01") })
    }

    @Test func configuredAddressWinsOverTheUUID() async throws {
        let fixture = Fixture(boardAddress: "00:aa:01:00:99:99")
        try await fixture.start()
        _ = fixture.takeCalls()
        await fixture.advertise()
        #expect(fixture.takeCalls().isEmpty, "another board with the Wake service is not ours")
        fixture.bluez.interfacesAdded(
            "/org/bluez/hci0/dev_00_AA_01_00_99_99",
            Self.deviceProperties(address: "00:AA:01:00:99:99", uuids: []))
        await fixture.runtime.drain()
        #expect(
            fixture.takeCalls() == [
                Self.connect[0], "call org.bluez /org/bluez/hci0/dev_00_AA_01_00_99_99 org.bluez.Device1.Connect()",
            ])
    }

    @Test func alreadyConnectedBoardIsSubscribedWithoutDiscovery() async throws {
        let fixture = Fixture(tree: [
            Self.adapterPath: FakeBlueZ.adapter(),
            Self.device: Self.deviceProperties(connected: true, resolved: true),
            Self.characteristic: [BlueZNames.gattCharacteristic: ["UUID": .string(WakeGATT.characteristicUUID)]],
        ])
        try await fixture.start()
        #expect(
            fixture.takeCalls() == [GattPeripheralTranscriptTests.getNameOwner, Self.getManagedObjects] + Self.subscribe
        )
        #expect(fixture.takeDelivered() == [Self.wake(7)])
    }

    @Test func stopTurnsDiscoveryOffAndDisconnects() async throws {
        let searching = Fixture()
        try await searching.start()
        _ = searching.takeCalls()
        await searching.central.stop()
        #expect(searching.takeCalls() == [Self.connect[0]])
        #expect(searching.bluez.bus.activeMatches.isEmpty)

        let linked = Fixture()
        try await linked.subscribe()
        _ = linked.takeCalls()
        await linked.central.stop()
        #expect(linked.takeCalls() == ["call org.bluez \(Self.device) org.bluez.Device1.Disconnect()"])
        // A stopping daemon waits a second at most for each reply (bluetoothd finishes the disconnect anyway).
        #expect(searching.bluez.bus.lastTimeout(of: "StopDiscovery") == .seconds(1))
        #expect(linked.bluez.bus.lastTimeout(of: "Disconnect") == .seconds(1))
    }
}
