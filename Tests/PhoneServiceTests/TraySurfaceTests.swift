import DBus
import DBusModel
import PhoneCore
import Platform
import TestSupport
import Testing
import WireFormat

@testable import PhoneService

/// `TraySurface` against a fake StatusNotifierWatcher (from the spec) on a private session bus, read as a tray host
/// reads it: it registers, its properties follow the cards, `GetLayout` gives the menu, `Event` answers the
/// revision shown; a watcher that crashes or is replaced gets the item again, and none at all stops nothing.
@Suite(.serialized) struct TraySurfaceTests {
    static func card(handoff: Bool, revision: UInt64 = 7) -> Card {
        var snapshot = SnapshotView(
            requestID: "chat_1", status: .known(.running), phase: .known(.acting), taskTitle: "Deploy",
            currentStep: "Building", canStop: true, revision: revision)
        if handoff {
            snapshot.phase = .known(.waitingUser)
            snapshot.currentAction = Handoff.requestUserInputAction
            snapshot.currentStep = "Deploy to production?"
        }
        return Card(
            state: CardState(snapshot: snapshot), snapshot: snapshot,
            link: LinkState(usb: .unmonitored, wake: .connected))
    }

    /// The menu's items under the root as a host reads them: id, label (or `-` for a separator), enabled.
    static func menu(_ host: DBusConnection, at service: String) async throws -> (UInt32, [(Int32, String, Bool)]) {
        let reply = try await host.call(
            destination: service, path: TraySurface.menuPath, interface: TraySurface.menuInterface,
            member: "GetLayout", [.int32(0), .int32(-1), .strings([])], expecting: "u(ia{sv}av)")
        let revision = try #require(reply[0].uint32Value)
        let root = try #require(reply[1].structureMembers)
        #expect(root[0].int32Value == 0)
        let items = try (root[2].arrayItems ?? []).map { child -> (Int32, String, Bool) in
            let fields = try #require(child.variantValue?.structureMembers)
            let properties = try #require(fields[1].vardict)
            if properties["type"]?.stringValue == "separator" { return (fields[0].int32Value ?? -1, "-", false) }
            return (
                fields[0].int32Value ?? -1, properties["label"]?.stringValue ?? "?",
                properties["enabled"]?.boolValue ?? false
            )
        }
        return (revision, items)
    }

    /// The tray and the session bus connection it goes on (started by the test, after any `onEvents`).
    static func tray() -> (TraySurface, SessionBus) {
        let runtime = SerialRuntime(label: "test.tray")
        return (
            TraySurface(runtime: runtime, logger: Logger(component: "test", entries: { _ in })),
            SessionBus(runtime: runtime, logger: Logger(component: "test", entries: { _ in }))
        )
    }

    @Test func aHostReadsTheItemAndItsMenuAndAPressAnswersTheRevisionShown() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let registered = Mailbox<FakeStatusNotifierWatcher.Registration>()
        let watcher = try await FakeStatusNotifierWatcher.start(on: bus.address, registered: registered)
        let host = try await DBusConnection.connect(to: .address(bus.address), timeout: .seconds(5))
        defer { host.close() }
        let (tray, sessionBus) = Self.tray()
        let answers = Mailbox<String>()
        tray.onEvents(
            answered: { answer, id, revision in
                answers.put("\(answer.rawValue) \(id) \(revision.map(String.init) ?? "-")")
            },
            opened: { id in answers.put("open \(id)") })
        sessionBus.start(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], surfaces: [tray])
        let registration = try await registered.next(within: 10, "the item's registration")
        #expect(registration.path == TraySurface.itemPath)
        let service = registration.service

        func property(_ name: String) async throws -> DBusValue {
            try await host.getProperty(
                name, interface: TraySurface.itemInterface, path: TraySurface.itemPath, destination: service)
        }
        #expect(try await property("Status").stringValue == "Passive")
        #expect(try await property("Menu").objectPathValue == TraySurface.menuPath)
        #expect(try await property("Id").stringValue == "aiden-phone")

        let statuses = Mailbox<String>()
        _ = try await host.addMatch(
            DBusMatchRule(type: .signal, interface: TraySurface.itemInterface, member: "NewStatus"),
            handler: { signal in statuses.put(signal.body.first?.stringValue ?? "?") })
        let launcher = Mailbox<[String: DBusValue]>()
        _ = try await host.addMatch(
            DBusMatchRule(type: .signal, interface: TraySurface.launcherInterface, member: "Update"),
            handler: { signal in
                guard signal.body.first?.stringValue == "application://aiden-phone.desktop" else { return }
                launcher.put(signal.body[1].vardict ?? [:])
            })
        tray.show([Self.card(handoff: true)], current: nil, alerts: [])
        #expect(try await statuses.next(within: 5, "NewStatus") == "NeedsAttention")
        // The dock's launcher entry: one task waits, urgent; no progress shown.
        let update = try await launcher.next(within: 5, "the launcher entry's Update")
        #expect(update["count"]?.int64Value == 1)
        #expect(update["count-visible"]?.boolValue == true)
        #expect(update["urgent"]?.boolValue == true)
        #expect(update["progress-visible"]?.boolValue == false)
        let query = try await host.call(
            destination: service, path: TraySurface.launcherPath, interface: TraySurface.launcherInterface,
            member: "Query", expecting: "sa{sv}")
        #expect(query[1].vardict?["count"]?.int64Value == 1)
        // The same cards again: no second Update.
        tray.show([Self.card(handoff: true)], current: nil, alerts: [])
        #expect(try await property("Status").stringValue == "NeedsAttention")
        #expect(try await property("IconName").stringValue == "dialog-question")
        let tooltip = try #require(try await property("ToolTip").structureMembers)
        #expect(tooltip[2].stringValue == "Your turn: Deploy — Deploy to production?")

        let (revision, items) = try await Self.menu(host, at: service)
        #expect(revision == 2)
        #expect(items.map(\.1) == ["Deploy: your turn — Deploy to production?", "Stop", "Done", "Refuse", "Show card"])
        #expect(items.map(\.2) == [false, true, true, true, true])
        let done = try #require(items.first { $0.1 == "Done" })
        _ = try await host.call(
            destination: service, path: TraySurface.menuPath, interface: TraySurface.menuInterface, member: "Event",
            [.int32(done.0), .string("clicked"), .variant(.string("")), .uint32(0)])
        #expect(try await answers.next(within: 5, "the answer") == "done chat_1 7")
        tray.show([], current: nil, alerts: [])
        #expect(try await launcher.next(within: 5, "the cleared entry")["count-visible"]?.boolValue == false)
        watcher.stop()
        await sessionBus.stop()
    }

    /// A watcher that restarts holds no items: the item registers with each new owner of the watcher's name, as
    /// it is. One crashes (its connection gone without a word) and a new process takes the name; then that one is
    /// replaced while it lives (a desktop shell started again with `replaceExisting`: the name goes from one owner
    /// to the other). Each watcher counts only its own registrations, so none can pass for another's.
    @Test func aWatcherThatRestartsGetsTheItemAgain() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let first = Mailbox<FakeStatusNotifierWatcher.Registration>()
        let crashing = try await FakeStatusNotifierWatcher.start(on: bus.address, registered: first)
        let host = try await DBusConnection.connect(to: .address(bus.address), timeout: .seconds(5))
        defer { host.close() }
        let (tray, sessionBus) = Self.tray()
        sessionBus.start(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], surfaces: [tray])
        let service = try await first.next(within: 10, "the registration with the first watcher").service
        tray.show([Self.card(handoff: true)], current: nil, alerts: [])
        let item = service + TraySurface.itemPath.rawValue

        crashing.stop()
        let second = Mailbox<FakeStatusNotifierWatcher.Registration>()
        let restarted = try await FakeStatusNotifierWatcher.start(
            on: bus.address, registered: second, flags: [.allowReplacement])
        defer { restarted.stop() }
        #expect(try await second.next(within: 10, "the registration with the restarted watcher").service == service)
        #expect(restarted.registeredItems == [item])
        let status = try await host.getProperty(
            "Status", interface: TraySurface.itemInterface, path: TraySurface.itemPath, destination: service)
        #expect(status.stringValue == "NeedsAttention", "the item as it is now")

        let third = Mailbox<FakeStatusNotifierWatcher.Registration>()
        let replacing = try await FakeStatusNotifierWatcher.start(
            on: bus.address, registered: third, flags: [.replaceExisting, .doNotQueue])
        defer { replacing.stop() }
        #expect(try await third.next(within: 10, "the registration with the replacing watcher").service == service)
        #expect(replacing.registeredItems == [item])
        await sessionBus.stop()
    }

    @Test func noWatcherStopsNothing() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let host = try await DBusConnection.connect(to: .address(bus.address), timeout: .seconds(5))
        defer { host.close() }
        let (tray, sessionBus) = Self.tray()
        sessionBus.start(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], surfaces: [tray])
        tray.show([Self.card(handoff: false)], current: nil, alerts: [])
        // A watcher that comes later finds the item as it is now.
        let registered = Mailbox<FakeStatusNotifierWatcher.Registration>()
        let watcher = try await FakeStatusNotifierWatcher.start(on: bus.address, registered: registered)
        defer { watcher.stop() }
        let service = try await registered.next(within: 10, "the late registration").service
        let status = try await host.getProperty(
            "Status", interface: TraySurface.itemInterface, path: TraySurface.itemPath, destination: service)
        #expect(status.stringValue == "Active")
        await sessionBus.stop()
    }
}
