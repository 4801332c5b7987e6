import DBus
import DBusModel
import PhoneCore
import Platform
import Synchronization
import TestSupport
import Testing
import WireFormat

@testable import PhoneService

/// `JobViewSurface` against a fake JobViewServer (from kjobwidgets' interface files) on a private session bus:
/// each active task gets its own view with its step and progress, its end terminates it, Cancel answers stop
/// at the revision shown, a restarted server or a dropped view gets the view again, a signal from anyone but
/// the server is not believed, and no server at all stops nothing.
@Suite(.serialized, .enabled(if: PrivateBus.daemonPath != nil, Comment(rawValue: PrivateBus.skipMessage)))
struct JobViewSurfaceTests {
    typealias Call = FakeJobViewServer.Call

    static func card(
        _ id: String = "chat_1", step: String = "Building", progress: Double? = 0.25, revision: UInt64 = 7,
        status: TaskStatus = .running
    ) -> Card {
        var snapshot = SnapshotView(
            requestID: id, status: .known(status), phase: .known(.acting), taskTitle: "Deploy " + id,
            currentStep: step, progress: progress, showsProgress: progress != nil, canStop: status == .running,
            revision: revision)
        snapshot.lastError = status == .failed ? "No network" : nil
        return Card(
            state: CardState(snapshot: snapshot), snapshot: snapshot,
            link: LinkState(usb: .unmonitored, wake: .connected))
    }

    /// The calls the server got, read from its mailbox until `done` holds for them.
    final class CallLog: Sendable {
        let mailbox = Mailbox<Call>()
        private let seen = Mutex<[Call]>([])

        @discardableResult
        func wait(_ what: String, until done: @Sendable ([Call]) -> Bool) async throws -> [Call] {
            while !done(seen.withLock { $0 }) {
                let call = try await mailbox.next(within: 10, what)
                seen.withLock { $0.append(call) }
            }
            return seen.withLock { $0 }
        }

        func on(_ path: DBusObjectPath) -> [Call] {
            seen.withLock { $0.filter { $0.path == path } }
        }
    }

    static func has(_ path: DBusObjectPath, _ member: String, _ body: [DBusValue]) -> @Sendable ([Call]) -> Bool {
        { calls in calls.contains(Call(path: path, member: member, body: body)) }
    }

    /// The surface on the phone's session bus connection (`SessionBus`), as the daemon starts it.
    struct Started: Sendable {
        let surface: JobViewSurface
        let sessionBus: SessionBus

        func stop() async {
            await sessionBus.stop()
        }
    }

    static func surface(_ bus: PrivateBus, answers: Mailbox<String>) -> Started {
        let runtime = SerialRuntime(label: "test.jobs")
        let logger = Logger(component: "test", entries: { _ in })
        let surface = JobViewSurface(runtime: runtime, logger: logger)
        surface.onEvents { answer, id, revision in
            answers.put("\(answer.rawValue) \(id) \(revision.map(String.init) ?? "-")")
        }
        let sessionBus = SessionBus(runtime: runtime, logger: logger)
        sessionBus.start(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], surfaces: [surface])
        return Started(surface: surface, sessionBus: sessionBus)
    }

    /// A private bus with a server on it and a surface following it.
    struct Rig: Sendable {
        let bus: PrivateBus
        let requests = Mailbox<FakeJobViewServer.Request>()
        let log = CallLog()
        let answers = Mailbox<String>()
        let server: FakeJobViewServer
        let started: Started
        var surface: JobViewSurface { started.surface }

        init() async throws {
            bus = try PrivateBus.start()
            server = try await FakeJobViewServer.start(on: bus.address, requests: requests, calls: log.mailbox)
            started = JobViewSurfaceTests.surface(bus, answers: answers)
        }

        func stop() async {
            await started.stop()
            server.stop()
            bus.stop()
        }
    }

    @Test func eachTaskGetsItsViewWithItsStepAndProgressAndItsEndTerminatesIt() async throws {
        let rig = try await Rig()
        let (requests, log, surface) = (rig.requests, rig.log, rig.surface)
        // Shown before the surface has found the server, maybe: the views come once it has.
        surface.show([Self.card("a"), Self.card("b")], current: nil, alerts: [])
        var views: [String: DBusObjectPath] = [:]
        for _ in 0..<2 {
            let request = try await requests.next(within: 10, "a requestView")
            #expect(request.desktopEntry == "aiden-phone")
            #expect(request.capabilities == 1)
            #expect(request.hints["immediate"]?.boolValue == true)
            views[request.path.rawValue] = request.path
        }
        #expect(views.count == 2)
        try await log.wait("both views filled") { calls in
            calls.filter { $0.member == "setPercent" }.count == 2
        }
        // Which view is whose: its description field 0 names the task.
        let viewOfA = try #require(views.values.first { Self.names(log.on($0), "Deploy a") })
        #expect(
            log.on(viewOfA).map(\.member) == ["setDescriptionField", "setInfoMessage", "setPercent"])
        #expect(log.on(viewOfA).last?.body == [.uint32(25)])

        surface.show(
            [Self.card("a", step: "Uploading", progress: 0.5, revision: 8), Self.card("b")], current: nil, alerts: [])
        try await log.wait("a's new percent", until: Self.has(viewOfA, "setPercent", [.uint32(50)]))
        #expect(log.on(viewOfA).suffix(2).map(\.member) == ["setInfoMessage", "setPercent"])
        #expect(log.on(viewOfA).suffix(2).first?.body == [.string("Uploading")])

        surface.show(
            [Self.card("a", revision: 9, status: .failed), Self.card("b")], current: nil, alerts: [])
        try await log.wait("a's end", until: Self.has(viewOfA, "terminate", [.string("No network")]))
        #expect(log.on(viewOfA).suffix(2).map(\.member) == ["setError", "terminate"])
        // The other task's view got nothing past its first fill.
        let viewOfB = try #require(views.values.first { $0 != viewOfA })
        #expect(log.on(viewOfB).count == 3)
        await rig.stop()
    }

    @Test func cancelIsStopAtTheRevisionShownAndOnlyTheServerIsBelieved() async throws {
        let rig = try await Rig()
        let (requests, log, answers, server, surface) = (rig.requests, rig.log, rig.answers, rig.server, rig.surface)
        let bus = rig.bus
        surface.show([Self.card("a"), Self.card("b")], current: nil, alerts: [])
        let views = [
            try await requests.next(within: 10, "a requestView").path,
            try await requests.next(within: 10, "a requestView").path,
        ]
        try await log.wait("both views filled") { calls in calls.filter { $0.member == "setPercent" }.count == 2 }
        let viewOfA = try #require(views.first { Self.names(log.on($0), "Deploy a") })
        let viewOfB = try #require(views.first { $0 != viewOfA })

        // Anyone else on the bus emitting a view's cancelRequested is not the server. The impostor's round
        // trip to the bus puts its signal before the server's: had it been believed, a's stop would come first.
        let impostor = try await DBusConnection.connect(to: .address(bus.address), timeout: .seconds(5))
        defer { impostor.close() }
        try impostor.emitSignal(path: viewOfA, interface: FakeJobViewServer.viewInterface, member: "cancelRequested")
        _ = try await impostor.nameOwner(FakeJobViewServer.name)
        try server.cancel(viewOfB)
        #expect(try await answers.next(within: 10, "b's stop") == "stop b 7")

        // a's view shows revision 8 (its new step arrived): the server's Cancel answers that revision.
        surface.show(
            [Self.card("a", step: "Deploying", revision: 8), Self.card("b")], current: nil, alerts: [])
        try await log.wait("a's new step", until: Self.has(viewOfA, "setInfoMessage", [.string("Deploying")]))
        try server.cancel(viewOfA)
        #expect(try await answers.next(within: 10, "a's stop") == "stop a 8")
        await rig.stop()
    }

    /// The view's description field 0 names the task `title`.
    static func names(_ calls: [Call], _ title: String) -> Bool {
        calls.contains { $0.member == "setDescriptionField" && $0.body[2].stringValue == title }
    }

    @Test func aRestartedServerOrADroppedViewGetsTheViewAgain() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let answers = Mailbox<String>()
        // No server yet: the surface waits, and stops nothing.
        let started = Self.surface(bus, answers: answers)
        let surface = started.surface
        surface.show([Self.card()], current: nil, alerts: [])
        let requests = Mailbox<FakeJobViewServer.Request>()
        let log = CallLog()
        let first = try await FakeJobViewServer.start(on: bus.address, requests: requests, calls: log.mailbox)
        let view = try await requests.next(within: 10, "the late server's requestView").path
        #expect(view == "/JobViewServer/JobView_1")
        try await log.wait("the view filled", until: Self.has(view, "setPercent", [.uint32(25)]))

        // The server crashes and another takes the name: the task's view is asked for again, and sent whole.
        first.stop()
        let restartedLog = CallLog()
        let restarted = try await FakeJobViewServer.start(
            on: bus.address, requests: requests, calls: restartedLog.mailbox)
        defer { restarted.stop() }
        let again = try await requests.next(within: 10, "the restarted server's requestView")
        #expect(again.sender != "")
        #expect(again.path == "/JobViewServer/JobView_1")
        try await restartedLog.wait("the view filled again", until: Self.has(view, "setPercent", [.uint32(25)]))
        #expect(restartedLog.on(view).map(\.member) == ["setDescriptionField", "setInfoMessage", "setPercent"])

        // The new server drops the view: the next change finds it gone and asks for another.
        restarted.drop(view)
        surface.show([Self.card(step: "Deploying", revision: 8)], current: nil, alerts: [])
        let replacement = try await requests.next(within: 10, "the requestView after the drop").path
        #expect(replacement == "/JobViewServer/JobView_2")
        try await restartedLog.wait(
            "the new view filled", until: Self.has(replacement, "setInfoMessage", [.string("Deploying")]))
        try restarted.cancel(replacement)
        #expect(try await answers.next(within: 10, "the stop") == "stop chat_1 8")
        await started.stop()
    }
}
