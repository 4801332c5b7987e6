import Synchronization
import TestSupport
import Testing

@testable import DBus
@testable import DBusModel

/// Real libdbus connections against a private dbus-daemon: one connection exports, the other calls.
@Suite(
    "DBusConnection on a private bus",
    .enabled(if: PrivateBus.daemonPath != nil, Comment(rawValue: PrivateBus.skipMessage)))
struct DBusConnectionIntegrationTests {
    static let objectPath: DBusObjectPath = "/org/aiden/test/object"

    /// A bus with an exporting and a calling connection, torn down in `close()`.
    struct Fixture: Sendable {
        let bus: PrivateBus
        let exporter: DBusConnection
        let caller: DBusConnection
        let object = TestObject()

        static func start() async throws -> Fixture {
            let bus = try PrivateBus.start()
            let exporter = try await DBusConnection.connect(to: .address(bus.address), timeout: .seconds(5))
            let caller = try await DBusConnection.connect(to: .address(bus.address), timeout: .seconds(5))
            let fixture = Fixture(bus: bus, exporter: exporter, caller: caller)
            try exporter.export(fixture.object, at: objectPath)
            return fixture
        }

        func close() {
            object.gate.open()
            caller.close()
            exporter.close()
            bus.stop()
        }

        func call(
            _ member: String, _ body: [DBusValue] = [], interface: String? = TestObject.interface,
            path: DBusObjectPath = objectPath, timeout: Duration = .seconds(5)
        ) async throws(DBusError) -> [DBusValue] {
            try await caller.call(
                destination: exporter.uniqueName, path: path, interface: interface, member: member, body,
                timeout: timeout)
        }
    }

    @discardableResult
    private func expectError(
        _ kind: DBusError.Kind, _ body: () async throws(DBusError) -> Void,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> DBusError? {
        do {
            try await body()
            Issue.record("expected \(kind), got success", sourceLocation: sourceLocation)
            return nil
        } catch {
            #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
            return error
        }
    }

    @Test func connectsAndGetsAUniqueName() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let connection = try await DBusConnection.connect(to: .address(bus.address), timeout: .seconds(5))
        defer { connection.close() }
        #expect(connection.uniqueName.hasPrefix(":"))
        #expect(connection.isConnected)
        #expect(try await connection.nameOwner("org.freedesktop.DBus") == "org.freedesktop.DBus")
        #expect(try await connection.nameOwner("org.aiden.Nobody") == nil)
    }

    @Test func connectingToAMissingSocketFailsAtOnce() async {
        do {
            _ = try await DBusConnection.connect(to: .address("unix:path=/nonexistent/aiden/bus"), timeout: .seconds(1))
            Issue.record("connected to a socket that does not exist")
        } catch {
            // libdbus names the failure (FileNotFound or NoServer) and the path it tried.
            #expect(error.name.hasPrefix("org.freedesktop.DBus.Error."), "\(error)")
            #expect(error.message.contains("/nonexistent/aiden/bus"), "\(error)")
        }
    }

    @Test func callsExportedMethodsAndReadsProperties() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.close() }
        let echoed = try await fixture.call("Echo", [.string("héllo")])
        #expect(echoed == [.string("héllo")])
        #expect(try await fixture.call("Add", [.int32(40), .int32(2)]) == [.int32(42)])
        #expect(try await fixture.call("Later", [.string("x")]) == [.string("later x")])
        #expect(try await fixture.call("Preference") == [.boolean(true)], "not on the global executor")

        let caller = fixture.caller
        let destination = fixture.exporter.uniqueName
        let path = Self.objectPath
        fixture.object.setValue([0xDE, 0xAD])
        let value = try await caller.getProperty(
            "Value", interface: TestObject.interface, path: path, destination: destination)
        #expect(value == .bytes([0xDE, 0xAD]))
        let all = try await caller.getAllProperties(
            interface: TestObject.interface, path: path, destination: destination)
        #expect(
            all == [
                "UUID": .string("12345678-1234-5678-1234-56789abcdef0"), "Value": .bytes([0xDE, 0xAD]),
                "Name": .string("initial"),
            ])

        try await caller.setProperty(
            "Name", interface: TestObject.interface, path: path, destination: destination, value: .string("renamed"))
        let renamed = try await caller.getProperty(
            "Name", interface: TestObject.interface, path: path, destination: destination)
        #expect(renamed == .string("renamed"))

        await expectError(.propertyReadOnly) { () throws(DBusError) in
            try await caller.setProperty(
                "UUID", interface: TestObject.interface, path: path, destination: destination, value: .string("x"))
        }
        await expectError(.invalidArgs) { () throws(DBusError) in
            try await caller.setProperty(
                "Name", interface: TestObject.interface, path: path, destination: destination, value: .int32(1))
        }
        await expectError(.unknownProperty) { () throws(DBusError) in
            _ = try await caller.getProperty(
                "Absent", interface: TestObject.interface, path: path, destination: destination)
        }
    }

    @Test func handlerErrorsReachTheCallerByName() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.close() }
        let failed = await expectError(.bluez(.notPermitted)) { () throws(DBusError) in
            _ = try await fixture.call("Fail")
        }
        #expect(failed?.name == "org.bluez.Error.NotPermitted")
        #expect(failed?.message == "not now")
        let wrong = await expectError(.failed) { () throws(DBusError) in _ = try await fixture.call("WrongReply") }
        #expect(wrong?.message.contains("returned 'i', declared 's'") == true)
    }

    @Test func getManagedObjectsListsTheExportedSubtree() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.close() }
        try fixture.exporter.export(DBusExportedObject.objectManager, at: "/org/aiden/app")
        try fixture.exporter.export(LeafObject(label: "service"), at: "/org/aiden/app/service0")
        try fixture.exporter.export(LeafObject(label: "char"), at: "/org/aiden/app/service0/char0")

        let objects = try await fixture.caller.getManagedObjects(
            destination: fixture.exporter.uniqueName, path: "/org/aiden/app")
        #expect(
            objects == [
                "/org/aiden/app/service0": ["org.aiden.Leaf1": ["Label": .string("service")]],
                "/org/aiden/app/service0/char0": ["org.aiden.Leaf1": ["Label": .string("char")]],
            ])

        let xml = try await fixture.call(
            "Introspect", interface: DBusStandardInterfaces.introspectable, path: "/org/aiden/app")
        let text = try #require(xml.first?.stringValue)
        #expect(text.contains(#"<interface name="org.freedesktop.DBus.ObjectManager">"#))
        #expect(text.contains(#"<node name="service0"/>"#))
    }

    @Test func propertiesChangedAndInterfacesAddedReachMatchedHandlers() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.close() }
        let changes = Mailbox<DBusMessage>()
        let additions = Mailbox<DBusMessage>()
        let exporterName = fixture.exporter.uniqueName
        _ = try await fixture.caller.addMatch(.propertiesChanged(sender: exporterName)) { changes.put($0) }
        _ = try await fixture.caller.addMatch(
            DBusMatchRule(sender: exporterName, interface: DBusStandardInterfaces.objectManager)
        ) { additions.put($0) }

        // Not matched by either rule: must not reach the handlers.
        try fixture.exporter.emitSignal(
            path: Self.objectPath, interface: TestObject.interface, member: "Ping", [.uint32(1)])
        try fixture.exporter.emitPropertiesChanged(
            path: Self.objectPath, interface: TestObject.interface, changed: ["Value": .bytes([0x07])],
            invalidated: ["Name"])

        let change = try await changes.next(within: 5, "PropertiesChanged")
        #expect(change.sender == exporterName)
        #expect(change.path == Self.objectPath)
        #expect(change.member == "PropertiesChanged")
        #expect(
            change.body == [.string(TestObject.interface), .vardict(["Value": .bytes([0x07])]), .strings(["Name"])])

        try fixture.exporter.export(DBusExportedObject.objectManager, at: "/org/aiden/app")
        try fixture.exporter.export(LeafObject(label: "new"), at: "/org/aiden/app/service1")
        let added = try await additions.next(within: 5, "InterfacesAdded")
        #expect(added.member == "InterfacesAdded")
        #expect(added.path == "/org/aiden/app")
        #expect(
            added.body == [
                .objectPath("/org/aiden/app/service1"),
                .interfacesAndProperties(["org.aiden.Leaf1": ["Label": .string("new")]]),
            ])
        fixture.exporter.unexport("/org/aiden/app/service1")
        let removed = try await additions.next(within: 5, "InterfacesRemoved")
        #expect(removed.member == "InterfacesRemoved")
        #expect(removed.body == [.objectPath("/org/aiden/app/service1"), .strings(["org.aiden.Leaf1"])])
    }

    @Test func aCallThatIsNeverAnsweredTimesOut() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.close() }
        let clock = ContinuousClock()
        let start = clock.now
        let error = await expectError(.timeout) { () throws(DBusError) in
            _ = try await fixture.call("Never", timeout: .milliseconds(300))
        }
        let elapsed = clock.now - start
        #expect(error?.name == DBusError.Names.noReply)
        #expect(error?.message.contains("within 300 ms") == true)
        #expect(elapsed >= .milliseconds(250) && elapsed < .seconds(3), "took \(elapsed)")
        // The connection is still usable afterwards.
        #expect(try await fixture.call("Echo", [.string("after")]) == [.string("after")])
    }

    @Test func missingObjectInterfaceAndMethodGetTheirErrors() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.close() }
        let object = await expectError(.unknownObject) { () throws(DBusError) in
            _ = try await fixture.call("Echo", [.string("x")], path: "/org/aiden/missing")
        }
        #expect(object?.message.contains("/org/aiden/missing") == true)
        await expectError(.unknownInterface) { () throws(DBusError) in
            _ = try await fixture.call("Echo", [.string("x")], interface: "org.aiden.Missing1")
        }
        await expectError(.unknownMethod) { () throws(DBusError) in
            _ = try await fixture.call("Missing")
        }
        await expectError(.serviceUnknown) { () throws(DBusError) in
            _ = try await fixture.caller.call(
                destination: "org.aiden.Nobody", path: "/", interface: "org.aiden.Test1", member: "Echo")
        }
    }

    @Test func wrongArgumentsAreRefusedAndTheExporterKeepsWorking() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.close() }
        let error = await expectError(.invalidArgs) { () throws(DBusError) in
            _ = try await fixture.call("Echo", [.int32(5)])
        }
        #expect(error?.message.contains("expects arguments 's', got 'i'") == true)
        await expectError(.invalidArgs) { () throws(DBusError) in
            _ = try await fixture.call("Add", [.int32(1), .int32(2), .int32(3)])
        }
        #expect(try await fixture.call("Echo", [.string("still here")]) == [.string("still here")])
        #expect(fixture.object.callCount == 1)
    }

    @Test func aThousandConcurrentCallsComplete() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.close() }
        let sums = try await withDeadline(60, "1000 calls") {
            try await withThrowingTaskGroup(of: (Int32, [DBusValue]).self) { group in
                for index in Int32(0)..<1000 {
                    group.addTask { (index, try await fixture.call("Add", [.int32(index), .int32(1000)])) }
                }
                var results: [Int32: [DBusValue]] = [:]
                for try await (index, reply) in group { results[index] = reply }
                return results
            }
        }
        #expect(sums.count == 1000)
        #expect(sums.allSatisfy { $0.value == [.int32($0.key + 1000)] })
    }

    @Test func callsBeyondTheInFlightLimitQueueAndStillTimeOutOnTime() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.close() }
        let count = DBusEventLoop.maximumInFlight + 6
        let clock = ContinuousClock()
        let start = clock.now
        let errors = try await withDeadline(10, "\(count) unanswered calls") {
            await withTaskGroup(of: DBusModel.DBusError.Kind?.self) { group in
                for _ in 0..<count {
                    group.addTask {
                        do throws(DBusError) {
                            _ = try await fixture.call("Never", timeout: .milliseconds(300))
                            return nil
                        } catch {
                            return error.kind
                        }
                    }
                }
                var kinds: [DBusError.Kind?] = []
                for await kind in group { kinds.append(kind) }
                return kinds
            }
        }
        #expect(errors.count == count)
        #expect(errors.allSatisfy { $0 == .timeout })
        #expect(clock.now - start < .seconds(3))
        #expect(try await fixture.call("Echo", [.string("after")]) == [.string("after")])
    }

    @Test func nameOwnerChangedIsSeenWhenTheOwnerCloses() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.close() }
        let name = "org.aiden.Test.Owner"
        let owner = try await DBusConnection.connect(to: .address(fixture.bus.address), timeout: .seconds(5))
        #expect(try await owner.requestName(name) == .primaryOwner)
        #expect(try await owner.requestName(name) == .alreadyOwner)
        #expect(try await fixture.caller.nameOwner(name) == owner.uniqueName)
        #expect(try await fixture.exporter.requestName(name) == .exists)

        let owners = Mailbox<String?>()
        let token = try await fixture.caller.watchNameOwner(name) { owners.put($0) }
        owner.close()
        #expect(try await owners.next(within: 5, "NameOwnerChanged") == nil)
        #expect(try await fixture.caller.nameOwner(name) == nil)

        #expect(try await fixture.exporter.requestName(name) == .primaryOwner)
        #expect(try await owners.next(within: 5, "the new owner") == fixture.exporter.uniqueName)
        // A call through the well-known name reaches the new owner.
        let reply = try await fixture.caller.call(
            destination: name, path: Self.objectPath, interface: TestObject.interface, member: "Echo",
            [.string("by name")])
        #expect(reply == [.string("by name")])
        await fixture.caller.removeMatch(token)
    }

    @Test func closingFailsPendingCallsWithDisconnected() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.close() }
        let caller = fixture.caller
        let destination = fixture.exporter.uniqueName
        let pending = Task { () async throws(DBusError) -> [DBusValue] in
            try await caller.call(
                destination: destination, path: Self.objectPath, interface: TestObject.interface, member: "Never",
                timeout: .seconds(30))
        }
        // The call must be on the wire before closing; a round trip on the same connection orders it.
        _ = try await fixture.call("Echo", [.string("sync")])
        caller.close()
        let result = try await withDeadline(5, "the pending call to fail") { await pending.result }
        #expect(throws: DBusError.self) { try result.get() }
        if case .failure(let error) = result { #expect((error as? DBusError)?.kind == .disconnected, "\(error)") }
        #expect(!caller.isConnected)
        await expectError(.disconnected) { () throws(DBusError) in _ = try await fixture.call("Echo", [.string("x")]) }
        #expect(throws: DBusError.self) {
            try caller.emitSignal(path: "/", interface: "org.aiden.Test1", member: "Ping")
        }
    }

    @Test func losingTheBusIsReportedAndFailsCalls() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.close() }
        let lost = Mailbox<Bool>()
        fixture.caller.onDisconnect { lost.put(true) }
        let caller = fixture.caller
        let destination = fixture.exporter.uniqueName
        let pending = Task { () async throws(DBusError) -> [DBusValue] in
            try await caller.call(
                destination: destination, path: Self.objectPath, interface: TestObject.interface, member: "Never",
                timeout: .seconds(30))
        }
        _ = try await fixture.call("Echo", [.string("sync")])
        fixture.bus.stop()
        #expect(try await lost.next(within: 5, "the disconnect report"))
        let result = try await withDeadline(5, "the pending call to fail") { await pending.result }
        if case .failure(let error) = result {
            #expect((error as? DBusError)?.kind == .disconnected, "\(error)")
        } else {
            Issue.record("a call pending when the bus died succeeded")
        }
        #expect(!caller.isConnected)
    }
}
