import DBusModel
import Platform
import TestSupport
import Testing
import WakeProtocol

@testable import BlueZ

/// The board peripheral against the in-memory bus: exact D-Bus transcripts of what it does.
@Suite("GattPeripheral transcripts")
struct GattPeripheralTranscriptTests {
    static let adapterPath: DBusObjectPath = "/org/bluez/hci0"
    static let initial = WakeEnvelope(reason: .system, epoch: 0x1234, sequence: 7).bytes

    static let registration = [
        "call org.bluez / org.freedesktop.DBus.ObjectManager.GetManagedObjects()",
        "call org.bluez /org/bluez/hci0 org.freedesktop.DBus.Properties.Set("
            + "'org.bluez.Adapter1', 'Discoverable', <false>)",
        "call org.bluez /org/bluez/hci0 org.freedesktop.DBus.Properties.Set('org.bluez.Adapter1', 'Pairable', <false>)",
        "call org.bluez /org/bluez org.bluez.AgentManager1.RegisterAgent("
            + "objectpath '/org/aidenbridge/agent', 'NoInputNoOutput')",
        "call org.bluez /org/bluez org.bluez.AgentManager1.RequestDefaultAgent(objectpath '/org/aidenbridge/agent')",
        "call org.bluez /org/bluez/hci0 org.bluez.GattManager1.RegisterApplication("
            + "objectpath '/org/aidenbridge/wake', @a{sv} {})",
        "call org.bluez /org/bluez/hci0 org.bluez.LEAdvertisingManager1.RegisterAdvertisement("
            + "objectpath '/org/aidenbridge/advertisement0', @a{sv} {})",
    ]
    static let getNameOwner =
        "call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.GetNameOwner('org.bluez')"

    /// A peripheral on a fake bus whose bluetoothd is running with a ready, powered hci0.
    struct Fixture {
        let bluez = FakeBlueZ()
        let runtime = ManualRuntime()
        let peripheral: GattPeripheral
        let logs: LogCapture

        init(
            flags: [String] = WakeGATT.defaultFlags, running: Bool = true,
            adapter: [String: [String: DBusValue]]? = FakeBlueZ.adapter()
        ) throws {
            let (logger, logs) = Logger.capturing(component: "test")
            self.logs = logs
            peripheral = try GattPeripheral(
                bus: bluez.bus,
                configuration: GattPeripheral.Configuration(
                    adapter: "hci0", characteristicFlags: flags, initialValue: GattPeripheralTranscriptTests.initial),
                runtime: runtime, logger: logger)
            bluez.setObject(GattPeripheralTranscriptTests.adapterPath, adapter)
            if running { bluez.setRunning(FakeBlueZ.owner) }
        }

        func start() async throws {
            try await peripheral.start()
            await runtime.drain()
        }

        /// The calls made since the last `mark()`.
        func callsSinceMark() -> [String] {
            defer { bluez.bus.clearTranscript() }
            return bluez.callLines
        }

        func mark() { bluez.bus.clearTranscript() }

        func emitted() -> [String] {
            bluez.bus.transcriptLines.filter { $0.hasPrefix("emit ") }
        }
    }

    @Test func startExportsSubscribesAndRegistersInOrder() async throws {
        let fixture = try Fixture()
        try await fixture.start()
        #expect(
            fixture.bluez.bus.transcriptLines.prefix(8) == [
                "export /org/aidenbridge/wake/service0 [org.bluez.GattService1]",
                "export /org/aidenbridge/wake/service0/char0 [org.bluez.GattCharacteristic1]",
                "export /org/aidenbridge/wake []",
                "export /org/aidenbridge/advertisement0 [org.bluez.LEAdvertisement1]",
                "export /org/aidenbridge/agent [org.bluez.Agent1]",
                "match type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                    + "member='NameOwnerChanged',path='/org/freedesktop/DBus',arg0='org.bluez'",
                "match type='signal',sender='org.bluez',interface='org.freedesktop.DBus.ObjectManager',path='/'",
                "match type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',"
                    + "member='PropertiesChanged',path_namespace='/org/bluez/hci0'",
            ])
        #expect(fixture.bluez.callLines == [Self.getNameOwner] + Self.registration)
        let facts = fixture.peripheral.facts
        #expect(facts.bluezRunning == true && facts.adapterPresent == true && facts.powered == true)
        #expect(facts.gattRegistered && facts.advertising && facts.agentRegistered && !facts.wakeSubscriber)
        #expect(facts.address == "00:AA:01:00:12:34")
        #expect(facts.problem == nil)
        #expect(fixture.runtime.pendingTimers.isEmpty, "registered and idle: no timer")
    }

    @Test func bluetoothdReadsTheApplicationAsBlueZRequires() async throws {
        let fixture = try Fixture()
        try await fixture.start()
        let reply = await fixture.bluez.callExported(
            WakeGATT.Paths.application, DBusStandardInterfaces.objectManager, "GetManagedObjects")
        let objects = try #require(reply.body.first?.managedObjects)
        #expect(objects.keys.sorted() == [WakeGATT.Paths.service, WakeGATT.Paths.characteristic])
        let service = try #require(objects[WakeGATT.Paths.service]?[BlueZNames.gattService])
        #expect(service["UUID"] == .string("a1de0001-7c4b-4f52-8d9a-6b4f6e6f7469"))
        #expect(service["Primary"] == .boolean(true))
        let characteristic = try #require(objects[WakeGATT.Paths.characteristic]?[BlueZNames.gattCharacteristic])
        #expect(characteristic["UUID"] == .string("a1de0002-7c4b-4f52-8d9a-6b4f6e6f7469"))
        // Type o, not s: bluetoothd rejects a string ("No valid service object found").
        #expect(characteristic["Service"] == .objectPath("/org/aidenbridge/wake/service0"))
        #expect(characteristic["Flags"] == .strings(["encrypt-read", "notify"]))
        #expect(characteristic["Value"] == .bytes(Self.initial))
        #expect(characteristic["Notifying"] == .boolean(false))
    }

    @Test func flagsComeFromTheConfiguration() async throws {
        let fixture = try Fixture(flags: ["read", "notify"])
        try await fixture.start()
        let properties = try await fixture.bluez.bus.callExported(
            path: WakeGATT.Paths.characteristic, interface: DBusStandardInterfaces.properties, member: "GetAll",
            [.string(BlueZNames.gattCharacteristic)])
        #expect(properties[0].vardict?["Flags"] == .strings(["read", "notify"]))
        #expect(throws: WakeCharacteristicFlagsError.noNotify(["read"])) {
            _ = try GattPeripheral(
                bus: FakeMessageBus(), configuration: .init(characteristicFlags: ["read"], initialValue: Self.initial),
                runtime: ManualRuntime(), logger: Logger.capturing().0)
        }
    }

    @Test func advertisementPropertiesAsBluetoothdReadsThem() async throws {
        let fixture = try Fixture()
        try await fixture.start()
        let reply = try await fixture.bluez.bus.callExported(
            path: WakeGATT.Paths.advertisement, interface: DBusStandardInterfaces.properties, member: "GetAll",
            [.string(BlueZNames.advertisement)])
        #expect(
            reply.map(\.description) == [
                "{'Discoverable': <false>, 'LocalName': <'Aiden-1234'>, "
                    + "'ManufacturerData': <{uint16 65535: <bytes 0x00aa01001234>}>, "
                    + "'ServiceUUIDs': <['a1de0001-7c4b-4f52-8d9a-6b4f6e6f7469']>, 'Type': <'peripheral'>}"
            ])
    }

    @Test func notifySessionAndWakeBecomePropertiesChanged() async throws {
        let fixture = try Fixture()
        try await fixture.start()
        fixture.mark()
        let start = await fixture.bluez.callExported(
            WakeGATT.Paths.characteristic, BlueZNames.gattCharacteristic, "StartNotify")
        #expect(start.type == .methodReturn)
        #expect(fixture.peripheral.facts.wakeSubscriber)

        let wake = WakeEnvelope(reason: .liveActivity, epoch: 0x1234, sequence: 8)
        #expect(throws: Never.self) { try fixture.peripheral.send(wake.bytes).get() }
        #expect(
            fixture.emitted() == [
                "emit /org/aidenbridge/wake/service0/char0 org.freedesktop.DBus.Properties.PropertiesChanged("
                    + "'org.bluez.GattCharacteristic1', {'Value': <bytes 0x010434120800000000000000>}, @as [])"
            ])
        // A read echoes the last Wake.
        let read = await fixture.bluez.callExported(
            WakeGATT.Paths.characteristic, BlueZNames.gattCharacteristic, "ReadValue", [.vardict([:])])
        #expect(read.body == [.bytes(wake.bytes)])

        let stop = await fixture.bluez.callExported(
            WakeGATT.Paths.characteristic, BlueZNames.gattCharacteristic, "StopNotify")
        #expect(stop.type == .methodReturn)
        #expect(!fixture.peripheral.facts.wakeSubscriber)
        #expect(fixture.callsSinceMark().isEmpty, "notify sessions and Wakes make no calls")
    }

    @Test func startNotifyStormKeepsOneHonestSession() async throws {
        let fixture = try Fixture()
        try await fixture.start()
        for _ in 0..<1000 {
            let reply = await fixture.bluez.callExported(
                WakeGATT.Paths.characteristic, BlueZNames.gattCharacteristic, "StartNotify")
            #expect(reply.type == .methodReturn)
        }
        #expect(fixture.peripheral.facts.wakeSubscriber)
        #expect(fixture.peripheral.facts.startNotifyCalls == 1000)
        // One StopNotify ends the one session: the storm did not stack sessions.
        await fixture.bluez.callExported(WakeGATT.Paths.characteristic, BlueZNames.gattCharacteristic, "StopNotify")
        #expect(!fixture.peripheral.facts.wakeSubscriber)

        // Another process cannot fake a subscriber.
        let stranger = await fixture.bluez.callExported(
            WakeGATT.Paths.characteristic, BlueZNames.gattCharacteristic, "StartNotify", sender: ":1.99")
        #expect(stranger.errorName == "org.bluez.Error.NotAuthorized")
        #expect(!fixture.peripheral.facts.wakeSubscriber)
    }

    @Test func bluetoothdLeavingAndReturningRegistersAgain() async throws {
        let fixture = try Fixture()
        try await fixture.start()
        await fixture.bluez.callExported(WakeGATT.Paths.characteristic, BlueZNames.gattCharacteristic, "StartNotify")
        fixture.mark()

        fixture.bluez.setRunning(nil)
        await fixture.runtime.drain()
        var facts = fixture.peripheral.facts
        #expect(facts.bluezRunning == false && !facts.gattRegistered && !facts.advertising && !facts.wakeSubscriber)
        #expect(facts.problem == "bluetoothd (org.bluez) is not on the bus")
        let wake = WakeEnvelope(reason: .liveActivity, epoch: 0x1234, sequence: 9).bytes
        #expect(throws: DBusError.self) { try fixture.peripheral.send(wake).get() }
        #expect(fixture.emitted().isEmpty, "nothing to notify while bluetoothd is gone")
        #expect(fixture.callsSinceMark().isEmpty)

        fixture.bluez.setRunning(":1.9")
        await fixture.runtime.drain()
        // At once: no timer between bluetoothd returning and the registration (docs/bluetooth.md: well under 2 s).
        #expect(fixture.runtime.monotonicNow() == .zero && fixture.runtime.pendingTimers.isEmpty)
        #expect(fixture.callsSinceMark() == Self.registration)
        facts = fixture.peripheral.facts
        #expect(facts.bluezRunning == true && facts.gattRegistered && facts.advertising && facts.registrations == 2)
        // The old bluetoothd's notify session is gone with it; the new one's is accepted.
        let old = await fixture.bluez.callExported(
            WakeGATT.Paths.characteristic, BlueZNames.gattCharacteristic, "StartNotify")
        #expect(old.errorName == "org.bluez.Error.NotAuthorized")
        let new = await fixture.bluez.callExported(
            WakeGATT.Paths.characteristic, BlueZNames.gattCharacteristic, "StartNotify", sender: ":1.9")
        #expect(new.type == .methodReturn)
        #expect(throws: Never.self) { try fixture.peripheral.send(wake).get() }
    }

    @Test func powerOffAndOnRegistersAgainWithoutTheAgent() async throws {
        let fixture = try Fixture()
        try await fixture.start()
        fixture.mark()
        fixture.bluez.propertiesChanged(Self.adapterPath, interface: BlueZNames.adapter, ["Powered": .boolean(false)])
        await fixture.runtime.drain()
        var facts = fixture.peripheral.facts
        #expect(facts.powered == false && !facts.gattRegistered && !facts.advertising && facts.agentRegistered)
        #expect(facts.problem == "adapter hci0 is powered off")
        #expect(fixture.callsSinceMark().isEmpty)

        // bluetoothd kept the registrations over the power cycle: AlreadyExists is success.
        fixture.bluez.bus.enqueueReply(
            to: "RegisterApplication", .failure(.bluez(.alreadyExists, "Application already registered")))
        fixture.bluez.propertiesChanged(Self.adapterPath, interface: BlueZNames.adapter, ["Powered": .boolean(true)])
        await fixture.runtime.drain()
        #expect(fixture.callsSinceMark() == Array(Self.registration[1...2] + Self.registration[5...6]))
        facts = fixture.peripheral.facts
        #expect(facts.powered == true && facts.gattRegistered && facts.advertising && facts.problem == nil)
    }

    /// A unicast `PropertiesChanged` reaches the board from anybody on the bus (the bus's sender filter applies
    /// to broadcasts only): one saying `Powered=false` from a local user must not stop the Wakes.
    @Test func spoofedSignalsFromAnotherSenderAreIgnored() async throws {
        let fixture = try Fixture()
        try await fixture.start()
        fixture.mark()
        fixture.bluez.propertiesChanged(
            Self.adapterPath, interface: BlueZNames.adapter, ["Powered": .boolean(false)], sender: ":1.66")
        fixture.bluez.signal(
            .root, interface: DBusStandardInterfaces.objectManager, member: "InterfacesRemoved",
            [.objectPath(Self.adapterPath), .strings([BlueZNames.adapter])], sender: ":1.67")
        await fixture.runtime.drain()
        let facts = fixture.peripheral.facts
        #expect(facts.powered == true && facts.gattRegistered && facts.advertising && facts.problem == nil)
        #expect(fixture.callsSinceMark().isEmpty)
        let wake = WakeEnvelope(reason: .liveActivity, epoch: 0x1234, sequence: 9).bytes
        #expect(throws: Never.self) { try fixture.peripheral.send(wake).get() }
        #expect(fixture.logs.lines.contains { $0.contains("from :1.66: org.bluez is owned by :1.0") })
    }

    @Test func waitsForTheAdapterInterfacesWithoutPolling() async throws {
        let fixture = try Fixture(adapter: FakeBlueZ.adapter(interfaces: [BlueZNames.adapter]))
        try await fixture.start()
        #expect(fixture.bluez.callLines == [Self.getNameOwner, Self.registration[0]])
        #expect(
            fixture.peripheral.facts.problem
                == "adapter hci0 has no org.bluez.GattManager1, org.bluez.LEAdvertisingManager1 yet")
        #expect(fixture.runtime.pendingTimers.isEmpty, "waiting is for a signal, not a timer")
        fixture.mark()
        fixture.bluez.interfacesAdded(Self.adapterPath, [BlueZNames.gattManager: [:]])
        await fixture.runtime.drain()
        #expect(fixture.callsSinceMark().isEmpty)
        fixture.bluez.interfacesAdded(Self.adapterPath, [BlueZNames.advertisingManager: [:]])
        await fixture.runtime.drain()
        #expect(fixture.callsSinceMark() == Array(Self.registration.dropFirst()))
        #expect(fixture.peripheral.facts.advertising)
    }

    @Test func signalsDuringDiscoveryAreNotLostToAnOlderAnswer() async throws {
        let fixture = try Fixture(adapter: FakeBlueZ.adapter(interfaces: [BlueZNames.adapter, BlueZNames.gattManager]))
        try await fixture.peripheral.start()
        // GetManagedObjects is queued but not answered yet; the last interface arrives first.
        fixture.bluez.interfacesAdded(Self.adapterPath, [BlueZNames.advertisingManager: [:]])
        await fixture.runtime.drain()
        #expect(fixture.peripheral.facts.advertising)
    }

    @Test func failedRegistrationIsRetriedWithBackoff() async throws {
        let fixture = try Fixture()
        fixture.bluez.bus.enqueueReply(to: "RegisterApplication", .failure(.bluez(.failed, "busy")))
        fixture.bluez.bus.enqueueReply(to: "RegisterApplication", .failure(.timeout("no answer in 10 s")))
        try await fixture.start()
        #expect(fixture.bluez.callLines.last == Self.registration[5])
        #expect(fixture.runtime.pendingTimers == [.seconds(1)])
        #expect(
            fixture.peripheral.facts.problem == "application failed (org.bluez.Error.Failed: busy); retrying in 1 s")
        fixture.mark()
        await fixture.runtime.advance(to: .milliseconds(999))
        #expect(fixture.callsSinceMark().isEmpty)
        await fixture.runtime.advance(to: .seconds(1))
        #expect(fixture.callsSinceMark() == [Self.registration[5]])
        #expect(fixture.runtime.pendingTimers == [.seconds(3)])
        await fixture.runtime.advance(to: .seconds(3))
        #expect(fixture.callsSinceMark() == Array(Self.registration[5...6]))
        #expect(fixture.peripheral.facts.advertising && fixture.peripheral.facts.problem == nil)
        #expect(fixture.runtime.pendingTimers.isEmpty)
    }

    @Test func bluetoothdAbsentAtStartThenArriving() async throws {
        let fixture = try Fixture(running: false)
        try await fixture.start()
        #expect(fixture.bluez.callLines == [Self.getNameOwner])
        #expect(fixture.peripheral.facts.bluezRunning == false)
        #expect(fixture.runtime.pendingTimers.isEmpty)
        fixture.mark()
        fixture.bluez.setRunning(FakeBlueZ.owner)
        await fixture.runtime.drain()
        #expect(fixture.callsSinceMark() == Self.registration)
    }

    @Test func releasedAdvertisementIsRegisteredAgainAfterABackoff() async throws {
        let fixture = try Fixture()
        try await fixture.start()
        fixture.mark()
        let reply = await fixture.bluez.callExported(WakeGATT.Paths.advertisement, BlueZNames.advertisement, "Release")
        #expect(reply.type == .methodReturn)
        #expect(!fixture.peripheral.facts.advertising)
        #expect(fixture.runtime.pendingTimers == [.seconds(1)])
        await fixture.runtime.advance(to: .seconds(1))
        #expect(fixture.callsSinceMark() == [Self.registration[6]])
        #expect(fixture.peripheral.facts.advertising)
    }

    @Test func stopRemovesObjectsAndMatches() async throws {
        let fixture = try Fixture()
        try await fixture.start()
        await fixture.peripheral.stop()
        #expect(fixture.bluez.bus.exportedPaths.isEmpty)
        #expect(fixture.bluez.bus.activeMatches.isEmpty)
    }
}
