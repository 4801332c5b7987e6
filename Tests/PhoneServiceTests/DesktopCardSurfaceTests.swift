import DBus
import DBusModel
import DesktopNotifications
import PhoneCore
import Platform
import Synchronization
import TestSupport
import Testing
import WireFormat

@testable import PhoneService

/// `DesktopCardSurface` against a notification server of the test's own on a private session bus: one id per task
/// through updates, the hints, a server that comes late or restarts, and a press that answers what the card
/// showed. (The real servers, dunst and mako, are in IntegrationTests.)
@Suite(.enabled(if: PrivateBus.daemonPath != nil, Comment(rawValue: PrivateBus.skipMessage)))
struct DesktopCardSurfaceTests {
    /// One `Notify` as the server got it.
    struct Call: Sendable, Equatable {
        var replacesID: UInt32
        var summary: String
        var actions: [String]
        var urgency: UInt8?
        var progress: Int32?
        var tag: String?
        var expire: Int32
        /// The caller's unique name: which connection posted.
        var sender: String?
    }

    /// A server that numbers new notifications 1, 2, … (from `first`), keeps the id of a replaced one, and
    /// hands each call to `calls`.
    static func server(
        on address: String, _ calls: Mailbox<Call>, first: UInt32 = 1, closes: Mailbox<UInt32> = Mailbox()
    ) async throws -> DBusConnection {
        let server = try await DBusConnection.connect(to: .address(address), timeout: .seconds(5))
        let counter = Mutex<UInt32>(first - 1)
        try server.export(
            DBusExportedObject(interfaces: [
                DBusInterface(
                    DesktopNotifier.serviceName,
                    methods: [
                        DBusMethod("GetServerInformation", outputs: "ssss") { _ throws(DBusError) in
                            [.string("fake-notifyd"), .string("tests"), .string("1"), .string("1.2")]
                        },
                        DBusMethod("GetCapabilities", outputs: "as") { _ throws(DBusError) in
                            [.strings(["body", "actions"])]
                        },
                        DBusMethod("Notify", inputs: "susssasa{sv}i", outputs: "u") { message throws(DBusError) in
                            let body = message.body
                            let replaces = body[1].uint32Value ?? 0
                            let hints = body[6].vardict ?? [:]
                            calls.put(
                                Call(
                                    replacesID: replaces, summary: body[3].stringValue ?? "?",
                                    actions: body[5].stringArray ?? [], urgency: hints["urgency"]?.byteValue,
                                    progress: hints["value"]?.int32Value,
                                    tag: hints["x-canonical-private-synchronous"]?.stringValue,
                                    expire: body[7].int32Value ?? -2, sender: message.sender))
                            if replaces != 0 { return [.uint32(replaces)] }
                            return [
                                .uint32(
                                    counter.withLock {
                                        $0 += 1; return $0
                                    })
                            ]
                        },
                        DBusMethod("CloseNotification", inputs: "u") { message throws(DBusError) in
                            closes.put(message.body[0].uint32Value ?? 0)
                            return []
                        },
                    ])
            ]), at: "/org/freedesktop/Notifications")
        _ = try await server.requestName(DesktopNotifier.serviceName)
        return server
    }

    static func card(_ state: String = "running", progress: Double = 0.2, revision: UInt64 = 5) -> Card {
        var snapshot = SnapshotView(
            requestID: "chat_1", status: .known(.running), phase: .known(.acting), taskTitle: "Deploy",
            currentStep: "Building", progress: progress, showsProgress: true, canStop: true, revision: revision)
        if state == "handoff" {
            snapshot.phase = .known(.waitingUser)
            snapshot.currentAction = Handoff.requestUserInputAction
            snapshot.currentStep = "Deploy to production?"
        }
        return Card(
            state: CardState(snapshot: snapshot), snapshot: snapshot,
            link: LinkState(usb: .unmonitored, wake: .connected))
    }

    @Test func oneIDPerTaskThroughUpdatesAndAPressAnswersTheRevisionShown() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let calls = Mailbox<Call>()
        let server = try await Self.server(on: bus.address, calls)
        defer { server.close() }
        let runtime = SerialRuntime(label: "test.surface")
        let surface = DesktopCardSurface(runtime: runtime, logger: Logger(component: "test") { _, _ in })
        let answers = Mailbox<String>()
        let found = Mailbox<Bool>()
        surface.onEvents(
            answered: { answer, id, revision in
                answers.put("\(answer.rawValue) \(id) \(revision.map(String.init) ?? "-")")
            },
            opened: { id in answers.put("open \(id)") }, serverFound: { found.put(true) })
        let sessionBus = SessionBus(runtime: runtime, logger: Logger(component: "test") { _, _ in })
        sessionBus.start(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], surfaces: [surface])
        #expect(try await found.next(within: 10, "the server found"))

        surface.show([Self.card()], current: nil, alerts: [])
        let first = try await calls.next(within: 10, "the first post")
        #expect(first.replacesID == 0)
        #expect(first.summary == "Task running")
        #expect(first.actions == ["default", "Open", "stop", "Stop"])
        #expect(first.urgency == 1)
        #expect(first.progress == 20)
        #expect(first.tag == "aiden-phone-chat_1")
        #expect(first.expire == 0)
        surface.show([Self.card(progress: 0.6, revision: 6)], current: nil, alerts: [])
        let second = try await calls.next(within: 10, "the update")
        #expect(second.replacesID == 1, "replaced in place")
        #expect(second.urgency == 0)
        #expect(second.progress == 60)
        surface.show(
            [Self.card("handoff", revision: 7)], current: nil,
            alerts: [Alert(transition: .handoff, requestID: "chat_1")])
        let asked = try await calls.next(within: 10, "the handoff")
        #expect(asked.replacesID == 1)
        #expect(asked.urgency == 2)
        #expect(asked.actions == ["default", "Open", "stop", "Stop", "done", "Done", "refuse", "Refuse"])

        try server.emit(
            .signal(
                path: "/org/freedesktop/Notifications", interface: DesktopNotifier.serviceName,
                member: "ActionInvoked", body: [.uint32(1), .string("done")]))
        #expect(try await answers.next(within: 10, "the press") == "done chat_1 7")
    }

    /// The server comes after the client (the user unit at login), and later restarts: each time it gets the
    /// live card, as a new notification with the card's tag.
    @Test func aLateAndARestartedServerGetTheLiveCard() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let runtime = SerialRuntime(label: "test.surface")
        let surface = DesktopCardSurface(runtime: runtime, logger: Logger(component: "test") { _, _ in })
        let sessionBus = SessionBus(runtime: runtime, logger: Logger(component: "test") { _, _ in })
        sessionBus.start(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], surfaces: [surface])
        surface.show([Self.card("handoff")], current: nil, alerts: [Alert(transition: .handoff, requestID: "chat_1")])
        let calls = Mailbox<Call>()
        let server = try await Self.server(on: bus.address, calls)
        let late = try await calls.next(within: 10, "the card once the server is there")
        #expect(late.replacesID == 0)
        #expect(late.urgency == 2, "the handoff given before the server still fires")
        server.close()
        let restarted = try await Self.server(on: bus.address, calls, first: 100)
        defer { restarted.close() }
        let again = try await calls.next(within: 10, "the card for the restarted server")
        #expect(again.replacesID == 0)
        #expect(again.urgency == 0, "a re-post is routine")
        #expect(again.tag == "aiden-phone-chat_1")
        surface.show([Self.card("handoff", revision: 8)], current: nil, alerts: [])
        #expect(try await calls.next(within: 10, "the next update").replacesID == 100)
    }

    /// An ended card leaves at its dismissal time: `CloseNotification` with its id.
    @Test func anEndedCardIsClosedAtItsDismissalTime() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let calls = Mailbox<Call>()
        let closes = Mailbox<UInt32>()
        let server = try await Self.server(on: bus.address, calls, first: 9, closes: closes)
        defer { server.close() }
        let runtime = SerialRuntime(label: "test.surface")
        let surface = DesktopCardSurface(runtime: runtime, logger: Logger(component: "test") { _, _ in })
        let found = Mailbox<Bool>()
        surface.onEvents(answered: { _, _, _ in }, opened: { _ in }, serverFound: { found.put(true) })
        let sessionBus = SessionBus(runtime: runtime, logger: Logger(component: "test") { _, _ in })
        sessionBus.start(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], surfaces: [surface])
        #expect(try await found.next(within: 10, "the server found"))
        var ended = SnapshotView(
            requestID: "chat_1", status: .known(.completed), taskTitle: "Deploy", revision: 9)
        ended.dismissAfterSeconds = 1
        surface.show(
            [Card(state: .completed, snapshot: ended, link: LinkState(usb: .unmonitored, wake: .connected))],
            current: nil, alerts: [Alert(transition: .completed, requestID: "chat_1")])
        let posted = try await calls.next(within: 10, "the ended card")
        #expect(posted.summary == "Task completed")
        #expect(posted.actions == ["default", "Open", "dismiss", "Dismiss"])
        #expect(try await closes.next(within: 10, "the close at the dismissal time") == 9)
    }
}
