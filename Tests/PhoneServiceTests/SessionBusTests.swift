import DBus
import DBusModel
import PhoneCore
import Platform
import TestSupport
import Testing

@testable import PhoneService

/// The phone's desktop surfaces on one session bus connection (`SessionBus`): the notifications and the tray
/// post and register from the same unique name, so a surface adds no connection; and each stays independent:
/// the tray works with no notification server, and a notification server that crashes stops nothing.
@Suite(.enabled(if: PrivateBus.daemonPath != nil, Comment(rawValue: PrivateBus.skipMessage)))
struct SessionBusTests {
    @Test func allSurfacesShareOneConnectionAndNoneDependsOnAnother() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let host = try await DBusConnection.connect(to: .address(bus.address), timeout: .seconds(5))
        defer { host.close() }
        let runtime = SerialRuntime(label: "test.session-bus")
        let logger = Logger(component: "test", entries: { _ in })
        let desktop = DesktopCardSurface(runtime: runtime, logger: logger)
        let tray = TraySurface(runtime: runtime, logger: logger)
        let sessionBus = SessionBus(runtime: runtime, logger: logger)
        let names = try await Self.uniqueNames(host)
        sessionBus.start(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], surfaces: [desktop, tray])

        // No notification server yet: the tray registers all the same.
        let registered = Mailbox<FakeStatusNotifierWatcher.Registration>()
        let watcher = try await FakeStatusNotifierWatcher.start(on: bus.address, registered: registered)
        defer { watcher.stop() }
        let service = try await registered.next(within: 10, "the tray's registration").service
        let calls = Mailbox<DesktopCardSurfaceTests.Call>()
        let server = try await DesktopCardSurfaceTests.server(on: bus.address, calls)
        desktop.show([DesktopCardSurfaceTests.card()], current: nil, alerts: [])
        tray.show([DesktopCardSurfaceTests.card()], current: nil, alerts: [])
        let posted = try await calls.next(within: 10, "the card's notification")
        #expect(posted.sender == service, "the notifier and the tray are one connection")
        let added = try await Self.uniqueNames(host).subtracting(names)
        #expect(added == [service, watcher.connection.uniqueName, server.uniqueName], "one connection for both")

        // The notification server crashes: the tray still answers.
        server.close()
        let status = try await host.getProperty(
            "Status", interface: TraySurface.itemInterface, path: TraySurface.itemPath, destination: service)
        #expect(status.stringValue == "Active")
        await sessionBus.stop()
    }

    /// The unique names (one per connection) on the bus now.
    static func uniqueNames(_ host: DBusConnection) async throws -> Set<String> {
        let reply = try await host.call(
            destination: DBusStandardInterfaces.busName, path: DBusStandardInterfaces.busPath,
            interface: DBusStandardInterfaces.busInterface, member: "ListNames", expecting: "as")
        return Set((reply[0].stringArray ?? []).filter { $0.hasPrefix(":") })
    }
}
