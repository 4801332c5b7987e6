import Synchronization
import TestSupport
import Testing

@testable import DBus
@testable import DBusModel
@testable import DesktopNotifications

/// The phone's desktop notifications against a notification server the test plays on a private bus.
@Suite(
    "DesktopNotifier on a private bus",
    .enabled(if: PrivateBus.daemonPath != nil, Comment(rawValue: PrivateBus.skipMessage)))
struct DesktopNotifierTests {
    /// What the fake server received: one body per Notify call.
    final class Received: Sendable {
        let calls = Mutex<[[DBusValue]]>([])
    }

    static func fakeServer(_ received: Received, capabilities: [String] = ["body"]) -> DBusExportedObject {
        DBusExportedObject(interfaces: [
            DBusInterface(
                DesktopNotifier.serviceName,
                methods: [
                    DBusMethod("GetServerInformation", outputs: "ssss") { _ throws(DBusError) in
                        [.string("fake-notifyd"), .string("AidenBridge tests"), .string("1.0"), .string("1.2")]
                    },
                    DBusMethod("GetCapabilities", outputs: "as") { _ throws(DBusError) in [.strings(capabilities)] },
                    DBusMethod("Notify", inputs: "susssasa{sv}i", outputs: "u") { message throws(DBusError) in
                        let count = received.calls.withLock { calls in
                            calls.append(message.body)
                            return calls.count
                        }
                        return [.uint32(UInt32(count))]
                    },
                ])
        ])
    }

    /// A private bus with the fake server on it and a notifier connected to it, for `body`.
    static func withFakeServer(
        capabilities: [String] = ["body"],
        _ body: (DesktopNotifier, Received) async throws -> Void
    ) async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let server = try await DBusConnection.connect(to: .address(bus.address), timeout: .seconds(5))
        let client = try await DBusConnection.connect(to: .address(bus.address), timeout: .seconds(5))
        defer {
            client.close()
            server.close()
        }
        let received = Received()
        try server.export(fakeServer(received, capabilities: capabilities), at: DesktopNotifier.path)
        _ = try await server.requestName(DesktopNotifier.serviceName)
        try await body(try await DesktopNotifier.connect(bus: client).get(), received)
    }

    @Test func notificationsReachTheServerWithSummaryBodyAndUrgency() async throws {
        try await Self.withFakeServer { notifier, received in
            #expect(notifier.server == "fake-notifyd AidenBridge tests 1.0")
            let id = try await notifier.notify(
                DesktopNotification(
                    summary: "Your turn on the phone", body: "Open Settings: confirm the network", urgency: .critical,
                    category: "device"))
            #expect(id == 1)
            let body = try #require(received.calls.withLock { $0.first })
            #expect(body.count == 8)
            #expect(body[0] == .string("aiden-phone"))
            #expect(body[3] == .string("Your turn on the phone"))
            #expect(body[4] == .string("Open Settings: confirm the network"))
            #expect(body[6].vardict?["urgency"] == .byte(2))
            #expect(body[6].vardict?["category"] == .string("device"))
            #expect(body[7] == .int32(-1))
        }
    }

    /// Board text in a body: escaped for a server that renders markup, as written for one that does not.
    @Test(arguments: [
        (["body", "body-markup"], "Open &lt;b&gt;Settings&lt;/b&gt; &amp; more"),
        (["body"], "Open <b>Settings</b> & more"),
    ])
    func bodiesAreEscapedOnlyWhereMarkupIsRendered(capabilities: [String], expected: String) async throws {
        try await Self.withFakeServer(capabilities: capabilities) { notifier, received in
            #expect(notifier.rendersBodyMarkup == capabilities.contains("body-markup"))
            try await notifier.notify(
                DesktopNotification(summary: "Task completed", body: "Open <b>Settings</b> & more"))
            let body = try #require(received.calls.withLock { $0.first })
            #expect(body[4] == .string(expected))
            #expect(body[3] == .string("Task completed"), "the summary is plain text in every server")
        }
    }

    @Test func withoutAServerConnectSaysWhy() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let client = try await DBusConnection.connect(to: .address(bus.address), timeout: .seconds(5))
        defer { client.close() }
        let result = await DesktopNotifier.connect(bus: client, timeout: .seconds(1))
        guard case let .failure(error) = result else {
            Issue.record("no server is on this bus, yet connect succeeded")
            return
        }
        #expect(error.kind == .serviceUnknown, "\(error)")
    }

    /// Buttons go to the server as `actions`; `ActionInvoked` and `NotificationClosed` come back only
    /// from the server that owns the name, about this notifier's own ids. A hostile peer on the session
    /// bus (broadcast or unicast to the client, with the same interface and path) and a signal about a
    /// notification of someone else are dropped.
    @Test func actionsGoOutAndOnlyTheServersSignalsAboutOwnIDsComeBack() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let server = try await DBusConnection.connect(to: .address(bus.address), timeout: .seconds(5))
        let client = try await DBusConnection.connect(to: .address(bus.address), timeout: .seconds(5))
        let hostile = try await DBusConnection.connect(to: .address(bus.address), timeout: .seconds(5))
        defer {
            hostile.close()
            client.close()
            server.close()
        }
        let received = Received()
        try server.export(Self.fakeServer(received), at: DesktopNotifier.path)
        _ = try await server.requestName(DesktopNotifier.serviceName)
        let notifier = try await DesktopNotifier.connect(bus: client).get()
        let signals = Mailbox<DesktopNotifier.Signal>()
        _ = try await notifier.subscribe { signals.put($0) }
        let id = try await notifier.notify(
            DesktopNotification(
                summary: "Your turn on the phone",
                actions: [.init(key: "done", label: "Done"), .init(key: "refuse", label: "Refuse")]))
        let body = try #require(received.calls.withLock { $0.first })
        #expect(body[5] == .strings(["done", "Done", "refuse", "Refuse"]))

        func signal(_ member: String, _ values: [DBusValue], to destination: String? = nil) -> DBusMessage {
            .signal(
                path: DesktopNotifier.path, interface: DesktopNotifier.serviceName, member: member,
                destination: destination, body: values)
        }
        // The hostile peer: a broadcast and a unicast to the client, both about the client's own id.
        try hostile.emit(signal("ActionInvoked", [.uint32(id), .string("done")]))
        try hostile.emit(signal("ActionInvoked", [.uint32(id), .string("refuse")], to: client.uniqueName))
        _ = try await hostile.nameOwner(DesktopNotifier.serviceName)  // the bus has routed both
        // The server, about an id that is not the client's, then with a wrong signature.
        try server.emit(signal("ActionInvoked", [.uint32(id + 100), .string("done")]))
        try server.emit(signal("ActionInvoked", [.uint32(id), .uint32(1)]))
        // The server, about the client's notification: this is what arrives first.
        try server.emit(signal("ActionInvoked", [.uint32(id), .string("refuse")]))
        #expect(try await signals.next() == .actionInvoked(id: id, key: "refuse"))
        try server.emit(signal("NotificationClosed", [.uint32(id), .uint32(2)]))
        #expect(try await signals.next() == .closed(id: id, reason: 2))
        // Closed: the id is no longer the client's, so a late action about it is dropped.
        try server.emit(signal("ActionInvoked", [.uint32(id), .string("done")]))
        let second = try await notifier.notify(DesktopNotification(summary: "Task completed"))
        try server.emit(signal("NotificationClosed", [.uint32(second), .uint32(1)]))
        #expect(try await signals.next() == .closed(id: second, reason: 1))
    }
}
