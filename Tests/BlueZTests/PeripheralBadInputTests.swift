import DBusModel
import Testing
import WakeProtocol

@testable import BlueZ

/// Whatever arrives from the bus, the peripheral answers with a clear D-Bus error and keeps working.
@Suite("GattPeripheral bad input")
struct PeripheralBadInputTests {
    typealias Fixture = GattPeripheralTranscriptTests.Fixture
    static let characteristic = WakeGATT.Paths.characteristic
    static let gatt = BlueZNames.gattCharacteristic
    static let setAdapter = "call org.bluez /org/bluez/hci0 org.freedesktop.DBus.Properties.Set('org.bluez.Adapter1', "

    func read(_ fixture: Fixture, _ options: DBusValue) async -> DBusMessage {
        await fixture.bluez.callExported(Self.characteristic, Self.gatt, "ReadValue", [options])
    }

    @Test func readValueHonoursOffsets() async throws {
        let fixture = try Fixture()
        try await fixture.start()
        let value = GattPeripheralTranscriptTests.initial
        let table: [(DBusValue, DBusValue?, String?)] = [
            (.vardict([:]), .bytes(value), nil),
            (.vardict(["offset": .uint16(4)]), .bytes(Array(value[4...])), nil),
            (.vardict(["offset": .uint16(12)]), .bytes([]), nil),
            (.vardict(["offset": .uint16(13)]), nil, "org.bluez.Error.InvalidOffset"),
            (.vardict(["offset": .uint16(65535)]), nil, "org.bluez.Error.InvalidOffset"),
            (.vardict(["offset": .string("4")]), nil, "org.bluez.Error.InvalidArguments"),
            (.vardict(["offset": .int32(4)]), nil, "org.bluez.Error.InvalidArguments"),
            (
                .vardict([
                    "mtu": .uint16(23), "device": .objectPath("/org/bluez/hci0/dev_1"), "link": .string("LE"),
                    "x-unknown": .bytes([1, 2]),
                ]), .bytes(value), nil
            ),
        ]
        for (options, answer, error) in table {
            let reply = await read(fixture, options)
            #expect(reply.errorName == error, "\(options)")
            if let answer { #expect(reply.body == [answer], "\(options)") }
        }
    }

    @Test func wrongSignaturesUnknownObjectsAndWritesAreRefused() async throws {
        let fixture = try Fixture()
        try await fixture.start()
        let table: [(DBusObjectPath, String, String, [DBusValue], String)] = [
            (Self.characteristic, Self.gatt, "ReadValue", [], DBusError.Names.invalidArgs),
            (Self.characteristic, Self.gatt, "ReadValue", [.string("offset")], DBusError.Names.invalidArgs),
            (Self.characteristic, Self.gatt, "StartNotify", [.boolean(true)], DBusError.Names.invalidArgs),
            (
                Self.characteristic, Self.gatt, "WriteValue", [.bytes([1]), .vardict([:])],
                "org.bluez.Error.NotPermitted"
            ),
            (Self.characteristic, Self.gatt, "AcquireNotify", [.vardict([:])], DBusError.Names.unknownMethod),
            (Self.characteristic, "org.bluez.Nope1", "ReadValue", [.vardict([:])], DBusError.Names.unknownInterface),
            (
                "/org/aidenbridge/wake/service0/char9", Self.gatt, "ReadValue", [.vardict([:])],
                DBusError.Names.unknownObject
            ),
            (
                WakeGATT.Paths.agent, BlueZNames.agent, "RequestPasskey", [.objectPath("/org/bluez/hci0/dev_1")],
                "org.bluez.Error.Rejected"
            ),
            (
                WakeGATT.Paths.agent, BlueZNames.agent, "RequestAuthorization", [.string("not a path")],
                DBusError.Names.invalidArgs
            ),
            (
                WakeGATT.Paths.characteristic, DBusStandardInterfaces.properties, "Set",
                [.string(Self.gatt), .string("Value"), .variant(.bytes([1]))], DBusError.Names.propertyReadOnly
            ),
        ]
        for (path, interface, member, body, error) in table {
            let reply = await fixture.bluez.callExported(path, interface, member, body)
            #expect(reply.errorName == error, "\(interface).\(member)(\(body)) at \(path)")
            let message = reply.body.first?.stringValue ?? ""
            #expect(message.count > 10, "the error says why")
        }
        // Still working afterwards.
        #expect(await read(fixture, .vardict([:])).body == [.bytes(GattPeripheralTranscriptTests.initial)])
    }

    @Test func agentAuthorizesOnlyInsideAPairingWindow() async throws {
        let fixture = try Fixture()
        try await fixture.start()
        let device = DBusValue.objectPath("/org/bluez/hci0/dev_00_AA_01_00_99_99")
        let before = await fixture.bluez.callExported(
            WakeGATT.Paths.agent, BlueZNames.agent, "RequestAuthorization", [device])
        #expect(before.errorName == "org.bluez.Error.Rejected")
        fixture.mark()
        let request = fixture.peripheral.requestPairingWindow(for: .seconds(120))
        #expect(request?.answer == nil, "answered once bluetoothd made the adapter pairable")
        await fixture.runtime.drain()
        #expect(request?.answer == .open(closesIn: .seconds(120)))
        #expect(fixture.peripheral.facts.pairingClosesIn == .seconds(120))
        #expect(
            fixture.callsSinceMark() == [
                Self.setAdapter + "'PairableTimeout', <uint32 120>)",
                Self.setAdapter + "'Pairable', <true>)",
            ])
        for (member, body) in [
            ("RequestAuthorization", [device]), ("RequestConfirmation", [device, .uint32(123456)]),
            ("AuthorizeService", [device, .string(WakeGATT.serviceUUID)]),
        ] {
            let reply = await fixture.bluez.callExported(WakeGATT.Paths.agent, BlueZNames.agent, member, body)
            #expect(reply.type == .methodReturn, "\(member)")
            // Anybody else on the bus asking the agent the same question inside the window gets no.
            let spoofed = await fixture.bluez.callExported(
                WakeGATT.Paths.agent, BlueZNames.agent, member, body, sender: ":1.66")
            #expect(spoofed.errorName == "org.bluez.Error.Rejected", "\(member) from :1.66")
        }
        // The advertisement turned discoverable (PropertiesChanged, bluetoothd re-reads it: no re-registration).
        let discoverable = try await fixture.bluez.bus.callExported(
            path: WakeGATT.Paths.advertisement, interface: DBusStandardInterfaces.properties, member: "Get",
            [.string(BlueZNames.advertisement), .string("Discoverable")])
        #expect(discoverable == [.variant(.boolean(true))])
        fixture.bluez.propertiesChanged(
            "/org/bluez/hci0/dev_00_AA_01_00_99_99", interface: BlueZNames.device, ["Paired": .boolean(true)])
        await fixture.runtime.drain()
        #expect(
            fixture.callsSinceMark() == [
                Self.setAdapter + "'Pairable', <false>)"
            ])
        let after = await fixture.bluez.callExported(
            WakeGATT.Paths.agent, BlueZNames.agent, "RequestAuthorization", [device])
        #expect(after.errorName == "org.bluez.Error.Rejected")
        #expect(fixture.peripheral.facts.pairingClosesIn == nil)
    }

    /// The board offers only the Wake service: `AuthorizeService` for anything else is refused even inside a
    /// window, and for the Wake service only inside one.
    @Test func agentAuthorizesOnlyTheWakeService() async throws {
        let fixture = try Fixture()
        try await fixture.start()
        let device = DBusValue.objectPath("/org/bluez/hci0/dev_00_AA_01_00_99_99")
        func authorize(_ uuid: String) async -> DBusMessage {
            await fixture.bluez.callExported(
                WakeGATT.Paths.agent, BlueZNames.agent, "AuthorizeService", [device, .string(uuid)])
        }
        #expect(await authorize(WakeGATT.serviceUUID).errorName == "org.bluez.Error.Rejected", "no window yet")
        let request = fixture.peripheral.requestPairingWindow(for: .seconds(120))
        await fixture.runtime.drain()
        #expect(request?.answer == .open(closesIn: .seconds(120)))
        let refused = [
            "0000110a-0000-1000-8000-00805f9b34fb",  // A2DP source
            "00001812-0000-1000-8000-00805f9b34fb",  // HID over GATT
            "00001124-0000-1000-8000-00805f9b34fb",  // HID
            WakeGATT.characteristicUUID,  // a characteristic, not the service
            WakeGATT.serviceUUID + "0", "", "a1de0001\n",
        ]
        for uuid in refused {
            let reply = await authorize(uuid)
            #expect(reply.errorName == "org.bluez.Error.Rejected", "\(uuid)")
            #expect(reply.body.first?.stringValue?.contains("only its Wake service") == true, "\(uuid)")
        }
        #expect(await authorize(WakeGATT.serviceUUID).type == .methodReturn)
        #expect(await authorize(WakeGATT.serviceUUID.uppercased()).type == .methodReturn, "UUIDs in any case")
        #expect(fixture.logs.lines.contains { $0.contains("only the Wake service is authorised") })
        #expect(!fixture.logs.lines.contains { $0.contains("\n") }, "a hostile UUID cannot break a log line")
    }

    @Test func sendBeforeRegistrationOnlyChangesTheValue() async throws {
        let fixture = try Fixture(running: false)
        try await fixture.start()
        let wake = WakeEnvelope(reason: .liveActivity, epoch: 1, sequence: 2).bytes
        let result = fixture.peripheral.send(wake)
        #expect(throws: DBusError.self) { try result.get() }
        #expect(fixture.emitted().isEmpty)
        #expect(fixture.peripheral.value == wake)
    }
}
