import Synchronization
import TestSupport
import Testing

@testable import DBusModel

/// The fake bus as the BlueZ transcript tests will use it: scripted replies, a transcript, the test playing
/// bluetoothd.
@Suite("FakeMessageBus")
struct FakeMessageBusTests {
    @Test func callsAreRecordedAndAnsweredFromTheScript() async throws {
        let bus = FakeMessageBus(uniqueName: ":1.9")
        bus.enqueueReply(
            to: "RegisterApplication", interface: "org.bluez.GattManager1", .failure(.bluez(.inProgress, "busy")))
        bus.enqueueReply(to: "RegisterApplication", .success([]))
        bus.respond(to: "Get", interface: DBusStandardInterfaces.properties) { call throws(DBusError) in
            guard call.body.last == .string("Powered") else { throw .unknownProperty("?", interface: "?") }
            return [.variant(.boolean(true))]
        }
        let register = { () async throws(DBusError) -> [DBusValue] in
            try await bus.call(
                destination: "org.bluez", path: "/org/bluez/hci0", interface: "org.bluez.GattManager1",
                member: "RegisterApplication", [.objectPath("/org/aiden/app"), .vardict([:])], expecting: "")
        }
        await #expect(throws: DBusError.bluez(.inProgress, "busy")) { try await register() }
        #expect(try await register() == [])
        let powered = try await bus.getProperty(
            "Powered", interface: "org.bluez.Adapter1", path: "/org/bluez/hci0", destination: "org.bluez")
        #expect(powered == .boolean(true))
        let unscripted = await #expect(throws: DBusError.self) { try await register() }
        #expect(unscripted?.kind == .unknownMethod)
        #expect(unscripted?.message.contains("nothing scripted for org.bluez.GattManager1.RegisterApplication") == true)

        let call =
            "call org.bluez /org/bluez/hci0 org.bluez.GattManager1.RegisterApplication("
            + "objectpath '/org/aiden/app', @a{sv} {})"
        #expect(
            bus.transcriptLines == [
                call, call,
                "call org.bluez /org/bluez/hci0 org.freedesktop.DBus.Properties.Get('org.bluez.Adapter1', 'Powered')",
                call,
            ])
        guard case .called(let message) = bus.transcript.first else {
            Issue.record("no call recorded")
            return
        }
        #expect(message.sender == ":1.9")
        #expect(message.serial != 0)
    }

    @Test func aScriptedTimeoutFailsAtOnce() async {
        let bus = FakeMessageBus()
        bus.enqueueReply(to: "StartDiscovery", .failure(.timeout("no reply within 5000 ms")))
        let error = await #expect(throws: DBusError.self) {
            _ = try await bus.call(
                destination: "org.bluez", path: "/org/bluez/hci0", interface: "org.bluez.Adapter1",
                member: "StartDiscovery")
        }
        #expect(error?.kind == .timeout)
    }

    @Test func valuesTheRealBusWouldRefuseAreRefused() async {
        let bus = FakeMessageBus()
        #expect(throws: DBusError.self) {
            try bus.emitSignal(path: "/a", interface: "org.aiden.Test1", member: "Bad", [.array(.string, [.int32(1)])])
        }
        await #expect(throws: DBusError.self) {
            _ = try await bus.call(destination: "not a name", path: "/", interface: nil, member: "X")
        }
        #expect(bus.transcript.isEmpty)
    }

    @Test func signalsReachOnlyMatchingHandlersAndRemovalStopsThem() async throws {
        let bus = FakeMessageBus()
        let seen = Mutex<[String]>([])
        let changes = try await bus.addMatch(.propertiesChanged(sender: "org.bluez", pathNamespace: "/org/bluez/hci0"))
        { message in
            seen.withLock { $0.append("changes \(message.path?.rawValue ?? "")") }
        }
        _ = try await bus.addMatch(
            DBusMatchRule(interface: DBusStandardInterfaces.objectManager, member: "InterfacesAdded")
        ) { _ in
            seen.withLock { $0.append("added") }
        }
        let changed = { (path: DBusObjectPath) in
            DBusMessage(
                type: .signal, path: path, interface: DBusStandardInterfaces.properties, member: "PropertiesChanged",
                sender: ":1.5", body: [.string("org.bluez.Device1"), .vardict(["RSSI": .int16(-50)]), .strings([])])
        }
        bus.deliverSignal(changed("/org/bluez/hci0/dev_1"))
        bus.deliverSignal(changed("/org/bluez/hci1/dev_1"))
        bus.deliverSignal(
            .signal(path: "/", interface: DBusStandardInterfaces.objectManager, member: "InterfacesAdded"))
        await bus.removeMatch(changes)
        bus.deliverSignal(changed("/org/bluez/hci0/dev_2"))
        #expect(seen.withLock { $0 } == ["changes /org/bluez/hci0/dev_1", "added"])
        let changesRule =
            "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',"
            + "member='PropertiesChanged',path_namespace='/org/bluez/hci0'"
        #expect(
            bus.transcriptLines == [
                "match " + changesRule,
                "match type='signal',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesAdded'",
                "unmatch " + changesRule,
            ])
        #expect(bus.activeMatches.count == 1)
    }

    @Test func nameOwnershipIsModelledLikeTheBus() async throws {
        let bus = FakeMessageBus(uniqueName: ":1.3")
        let owners = Mutex<[String?]>([])
        _ = try await bus.watchNameOwner("org.bluez") { owner in owners.withLock { $0.append(owner) } }
        #expect(try await bus.nameOwner("org.bluez") == nil)
        bus.setNameOwner("org.bluez", to: ":1.5")
        #expect(try await bus.nameOwner("org.bluez") == ":1.5")
        bus.setNameOwner("org.bluez", to: nil)
        bus.setNameOwner("org.bluez", to: ":1.8")
        bus.setNameOwner("org.other", to: ":1.9")
        #expect(owners.withLock { $0 } == [":1.5", nil, ":1.8"])
        #expect(try await bus.requestName("org.aiden.Board") == .primaryOwner)
        #expect(try await bus.requestName("org.aiden.Board") == .alreadyOwner)
        #expect(try await bus.requestName("org.bluez") == .exists)
    }

    @Test func emitPropertiesChangedIsRecordedAsTheSignal() throws {
        let bus = FakeMessageBus(uniqueName: ":1.4")
        try bus.emitPropertiesChanged(
            path: "/org/aiden/app/service0/char0", interface: "org.bluez.GattCharacteristic1",
            changed: ["Value": .bytes([0x01, 0x02])])
        #expect(
            bus.transcriptLines == [
                "emit /org/aiden/app/service0/char0 org.freedesktop.DBus.Properties.PropertiesChanged("
                    + "'org.bluez.GattCharacteristic1', {'Value': <bytes 0x0102>}, @as [])"
            ])
    }

    @Test func matchRulesRenderAndMatchLikeTheBus() {
        let rule = DBusMatchRule(sender: "org.bluez", interface: "a.b", member: "C", path: "/p", arguments: [0: "it's"])
        #expect(
            rule.description == #"type='signal',sender='org.bluez',interface='a.b',member='C',path='/p',arg0='it'\''s'"#
        )
        let message = DBusMessage(
            type: .signal, path: "/p", interface: "a.b", member: "C", sender: ":1.2", body: [.string("it's")])
        #expect(rule.matches(message))
        var other = message
        other.body = [.string("no")]
        #expect(!rule.matches(other))
        let unique = DBusMatchRule(sender: ":1.3")
        #expect(!unique.matches(message))
        #expect(throws: DBusError.self) { try DBusMatchRule(interface: "nodots").validate() }
        #expect(throws: DBusError.self) { try DBusMatchRule(path: "/a", pathNamespace: "/a").validate() }
    }

    @Test func errorNamesMapToKinds() {
        #expect(DBusError(name: "org.bluez.Error.InProgress", message: "").kind == .bluez(.inProgress))
        #expect(DBusError(name: "org.bluez.Error.Whatever", message: "").kind == .other)
        #expect(DBusError(name: DBusError.Names.noReply, message: "").kind == .timeout)
        #expect(DBusError(name: DBusError.Names.timeout, message: "").kind == .timeout)
        #expect(DBusError(name: DBusError.Names.serviceUnknown, message: "").kind == .serviceUnknown)
        #expect(DBusError(name: DBusError.Names.disconnected, message: "").kind == .disconnected)
        #expect(DBusError(name: "com.example.Error.Odd", message: "m").kind == .other)
        #expect(DBusError(name: "com.example.Error.Odd", message: "m").description == "com.example.Error.Odd: m")
        for kind in DBusError.Kind.BlueZ.allCases {
            #expect(DBusError.bluez(kind).kind == .bluez(kind))
        }
    }
}
