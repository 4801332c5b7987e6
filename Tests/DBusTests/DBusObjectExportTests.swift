import TestSupport
import Testing

@testable import DBusModel

/// Exported objects answered through the shared registry, driven through `FakeMessageBus` (no bus, no thread).
@Suite("Object export")
struct DBusObjectExportTests {
    static let path: DBusObjectPath = "/org/aiden/test/object"

    private func exported() throws -> (FakeMessageBus, TestObject) {
        let bus = FakeMessageBus()
        let object = TestObject()
        try bus.export(object, at: Self.path)
        return (bus, object)
    }

    private func errorName(
        _ bus: FakeMessageBus, path: DBusObjectPath = path, interface: String?, member: String, _ body: [DBusValue] = []
    ) async -> String? {
        let reply = await bus.deliverCall(
            .methodCall(destination: nil, path: path, interface: interface, member: member, body: body))
        return reply.errorName
    }

    @Test func methodsAnswerAndUnknownsGetStandardErrors() async throws {
        let (bus, _) = try exported()
        #expect(
            try await bus.callExported(
                path: Self.path, interface: TestObject.interface, member: "Echo", [.string("hi")]) == [.string("hi")])
        #expect(
            try await bus.callExported(path: Self.path, interface: nil, member: "Add", [.int32(2), .int32(3)]) == [
                .int32(5)
            ])
        #expect(
            try await bus.callExported(
                path: Self.path, interface: TestObject.interface, member: "Later", [.string("x")]) == [
                    .string("later x")
                ])
        #expect(
            await errorName(bus, path: "/nowhere", interface: TestObject.interface, member: "Echo")
                == DBusError.Names.unknownObject)
        #expect(await errorName(bus, interface: "org.aiden.Other1", member: "Echo") == DBusError.Names.unknownInterface)
        #expect(await errorName(bus, interface: TestObject.interface, member: "Nope") == DBusError.Names.unknownMethod)
        #expect(await errorName(bus, interface: nil, member: "Nope") == DBusError.Names.unknownMethod)
        #expect(await errorName(bus, interface: TestObject.interface, member: "Fail") == "org.bluez.Error.NotPermitted")
        #expect(await errorName(bus, interface: TestObject.interface, member: "WrongReply") == DBusError.Names.failed)
        #expect(await errorName(bus, interface: DBusStandardInterfaces.peer, member: "Ping") == nil)
        // ObjectManager is only answered by objects that are managers.
        #expect(
            await errorName(bus, interface: DBusStandardInterfaces.objectManager, member: "GetManagedObjects")
                == DBusError.Names.unknownInterface)
    }

    @Test func argumentsAreCheckedAgainstTheDeclaredSignature() async throws {
        let (bus, object) = try exported()
        let reply = await bus.deliverCall(
            .methodCall(
                destination: nil, path: Self.path, interface: TestObject.interface, member: "Echo", body: [.uint32(1)]))
        #expect(reply.error?.kind == .invalidArgs)
        #expect(reply.error?.message == "method 'Echo' of interface 'org.aiden.Test1' expects arguments 's', got 'u'")
        #expect(object.callCount == 0)
        _ = try await bus.callExported(
            path: Self.path, interface: TestObject.interface, member: "Echo", [.string("ok")])
        #expect(object.callCount == 1)
    }

    @Test func propertiesGetGetAllAndSet() async throws {
        let (bus, object) = try exported()
        let properties = DBusStandardInterfaces.properties
        object.setValue([0xAA])
        #expect(
            try await bus.callExported(
                path: Self.path, interface: properties, member: "Get",
                [.string(TestObject.interface), .string("Value")]) == [.variant(.bytes([0xAA]))])
        let all = try await bus.callExported(
            path: Self.path, interface: properties, member: "GetAll", [.string(TestObject.interface)])
        #expect(
            all.first?.vardict == [
                "UUID": .string("12345678-1234-5678-1234-56789abcdef0"), "Value": .bytes([0xAA]),
                "Name": .string("initial"),
            ])
        // Standard interfaces have no properties.
        #expect(
            try await bus.callExported(path: Self.path, interface: properties, member: "GetAll", [.string(properties)])
                == [.vardict([:])])

        _ = try await bus.callExported(
            path: Self.path, interface: properties, member: "Set",
            [.string(TestObject.interface), .string("Name"), .variant(.string("new"))])
        #expect(
            try await bus.callExported(
                path: Self.path, interface: properties, member: "Get", [.string(TestObject.interface), .string("Name")])
                == [.variant(.string("new"))])

        let setName: (String, DBusValue) async -> String? = { name, value in
            await self.errorName(
                bus, interface: properties, member: "Set",
                [.string(TestObject.interface), .string(name), .variant(value)])
        }
        #expect(await setName("UUID", .string("x")) == DBusError.Names.propertyReadOnly)
        #expect(await setName("Name", .int32(3)) == DBusError.Names.invalidArgs)
        #expect(await setName("Missing", .int32(3)) == DBusError.Names.unknownProperty)
        #expect(
            await errorName(
                bus, interface: properties, member: "Get", [.string(TestObject.interface), .string("Absent")])
                == DBusError.Names.unknownProperty)
        #expect(
            await errorName(bus, interface: properties, member: "Get", [.string("org.aiden.Other1"), .string("Name")])
                == DBusError.Names.unknownInterface)
        #expect(
            await errorName(bus, interface: properties, member: "Get", [.string(TestObject.interface)])
                == DBusError.Names.invalidArgs)
    }

    @Test func aGetterOfTheWrongTypeIsReportedNotCrashed() async throws {
        let bus = FakeMessageBus()
        let broken = DBusExportedObject(interfaces: [
            DBusInterface("org.aiden.Broken1", properties: [DBusProperty("Count", type: "u", get: { .string("oops") })])
        ])
        // The export reads every property once, so the mistake is caught there.
        #expect(throws: DBusError.self) { try bus.export(broken, at: "/broken") }
        #expect(bus.exportedPaths.isEmpty)
    }

    @Test func invalidDeclarationsAreRefusedAtExport() {
        let bus = FakeMessageBus()
        let cases: [(DBusInterface, String)] = [
            (DBusInterface("nodots"), "invalid interface name"),
            (DBusInterface(DBusStandardInterfaces.properties), "built in"),
            (DBusInterface("org.aiden.A1", methods: [DBusMethod("Bad.Name") { _ in [] }]), "invalid member name"),
            (
                DBusInterface("org.aiden.A1", methods: [DBusMethod("M", inputs: "a{vs}") { _ in [] }]),
                "not a basic type"
            ),
            (DBusInterface("org.aiden.A1", properties: [DBusProperty("P", type: "ss", get: { nil })]), "exactly one"),
            (
                DBusInterface("org.aiden.A1", methods: [DBusMethod("M") { _ in [] }, DBusMethod("M") { _ in [] }]),
                "twice"
            ),
        ]
        for (interface, reason) in cases {
            do {
                try bus.export(DBusExportedObject(interfaces: [interface]), at: "/x")
                Issue.record("exported \(interface.name)")
            } catch {
                #expect(error.message.contains(reason), "\(error.message)")
            }
        }
        #expect(throws: DBusError.self) { try bus.export(LeafObject(label: "a"), at: "bad/path") }
        #expect(throws: Never.self) { try bus.export(LeafObject(label: "a"), at: "/x") }
        do {
            try bus.export(LeafObject(label: "b"), at: "/x")
            Issue.record("exported twice at /x")
        } catch {
            #expect(error.kind == .objectPathInUse)
        }
    }

    @Test func objectManagerListsDescendantsAndAnnouncesChanges() async throws {
        let bus = FakeMessageBus()
        try bus.export(LeafObject(label: "outside"), at: "/other")
        try bus.export(DBusExportedObject.objectManager, at: "/app")
        try bus.export(LeafObject(label: "s0"), at: "/app/service0")
        try bus.export(LeafObject(label: "c0"), at: "/app/service0/char0")
        let reply = try await bus.callExported(
            path: "/app", interface: DBusStandardInterfaces.objectManager, member: "GetManagedObjects")
        #expect(
            reply.first?.managedObjects == [
                "/app/service0": ["org.aiden.Leaf1": ["Label": .string("s0")]],
                "/app/service0/char0": ["org.aiden.Leaf1": ["Label": .string("c0")]],
            ])
        bus.unexport("/app/service0/char0")
        #expect(
            bus.transcriptLines == [
                "export /other [org.aiden.Leaf1]",
                "export /app []",
                "export /app/service0 [org.aiden.Leaf1]",
                "emit /app org.freedesktop.DBus.ObjectManager.InterfacesAdded("
                    + "objectpath '/app/service0', {'org.aiden.Leaf1': {'Label': <'s0'>}})",
                "export /app/service0/char0 [org.aiden.Leaf1]",
                "emit /app org.freedesktop.DBus.ObjectManager.InterfacesAdded("
                    + "objectpath '/app/service0/char0', {'org.aiden.Leaf1': {'Label': <'c0'>}})",
                "receive :1.1 /app org.freedesktop.DBus.ObjectManager.GetManagedObjects()",
                "return ({objectpath '/app/service0': {'org.aiden.Leaf1': {'Label': <'s0'>}}, "
                    + "objectpath '/app/service0/char0': {'org.aiden.Leaf1': {'Label': <'c0'>}}})",
                "unexport /app/service0/char0",
                "emit /app org.freedesktop.DBus.ObjectManager.InterfacesRemoved("
                    + "objectpath '/app/service0/char0', ['org.aiden.Leaf1'])",
            ])
    }

    @Test func introspectionDescribesInterfacesAndChildren() async throws {
        let (bus, _) = try exported()
        let xml = try #require(
            try await bus.callExported(
                path: Self.path, interface: DBusStandardInterfaces.introspectable, member: "Introspect"
            ).first?.stringValue)
        #expect(xml.contains(#"<interface name="org.aiden.Test1">"#))
        #expect(
            xml.contains(
                #"<method name="Add"><arg type="i" direction="in"/><arg type="i" direction="in"/>"#
                    + #"<arg type="i" direction="out"/></method>"#
            ))
        #expect(xml.contains(#"<property name="Name" type="s" access="readwrite"/>"#))
        #expect(xml.contains(#"<property name="UUID" type="s" access="read"/>"#))
        #expect(xml.contains(#"<signal name="Ping"><arg type="u"/></signal>"#))
        // A path above exported objects introspects to its children only.
        let parent = try #require(
            try await bus.callExported(
                path: "/org/aiden", interface: DBusStandardInterfaces.introspectable, member: "Introspect"
            ).first?.stringValue)
        #expect(parent.contains(#"<node name="test"/>"#))
        #expect(!parent.contains("org.aiden.Test1"))
    }
}
