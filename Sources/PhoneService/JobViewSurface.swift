import BlueZ
import DBus
import DBusModel
import DesktopNotifications
import PhoneCore
import Platform
import Synchronization
import WireFormat

/// KDE's job progress (docs/desktop.md): one `org.kde.JobViewV2` view per active task, asked of
/// `org.kde.JobViewServer` (`org.kde.JobViewServerV2.requestView`) on the session bus. `JobViewPlan` decides;
/// this shell asks for the views and makes the calls at the name's current owner (its unique name, so a
/// late call never reaches the next server's view at the same path), one call at a time in order, a view
/// waiting behind a slow server keeping only the last call for each part. It believes `cancelRequested` only
/// from that owner and only from the paths it was given. No server is logged once and stops nothing; a server
/// that comes, goes or restarts (`NameOwnerChanged`) gets every active task's view again.
package final class JobViewSurface: CardSurface, SessionBusSurface {
    private struct State: Sendable {
        var plan = JobViewPlan()
        var bus: (any BusConnection)?
        /// The unique name owning `org.kde.JobViewServer` now, and a count of owners seen, so an answer
        /// from an older one is dropped.
        var owner: String?
        var generation: UInt64 = 0
        /// The owner was told by `NameOwnerChanged`: the first `GetNameOwner`'s answer is older.
        var ownerSignalled = false
        /// Calls not sent yet, per view path, in the order the views got them; `sending` while a task sends.
        var outbox: [String: [JobViewPlan.Call]] = [:]
        var outboxOrder: [String] = []
        var sending = false
        var answered: (@Sendable (Answer, String, UInt64?) -> Void)?
        var saidAbsent = false
        /// The signal match and the name watch on `bus`, removed at `detach`.
        var watches: [DBusMatchToken] = []
    }

    package static let serverName = "org.kde.JobViewServer"
    package static let serverPath: DBusObjectPath = "/JobViewServer"
    package static let serverInterface = "org.kde.JobViewServerV2"
    package static let viewInterface = "org.kde.JobViewV2"
    /// The desktop entry the server takes the application's name and icon from.
    package static let desktopEntry = "aiden-phone"
    static let callTimeout: Duration = .seconds(5)

    private let state = Mutex(State())
    private let runtime: any Runtime
    private let logger: Logger

    package init(runtime: any Runtime, logger: Logger) {
        self.runtime = runtime
        self.logger = logger
    }

    /// `answered` gets each Cancel pressed on a view: `stop`, the request id, the revision the view showed.
    package func onEvents(answered: @escaping @Sendable (Answer, String, UInt64?) -> Void) {
        state.withLock { $0.answered = answered }
    }

    /// On the phone's session bus connection (`SessionBus`): follows `cancelRequested` and the server's name,
    /// and asks for the views of the tasks shown.
    package func attach(to bus: any BusConnection) async {
        state.withLock { $0.bus = bus }
        do throws(DBusError) {
            let cancel = try await bus.addMatch(
                DBusMatchRule(type: .signal, interface: Self.viewInterface, member: "cancelRequested")
            ) { [weak self] signal in self?.cancelRequested(signal) }
            state.withLock { $0.watches.append(cancel) }
            let watch = try await bus.watchNameOwner(Self.serverName) { [weak self] owner in
                self?.serverChanged(owner, signalled: true)
            }
            state.withLock { $0.watches.append(watch) }
        } catch {
            logger.warning("the job views are off: cannot follow the JobViewServer on the session bus: \(error)")
            return
        }
        let owner = try? await bus.nameOwner(Self.serverName, timeout: Self.callTimeout)
        serverChanged(owner ?? nil, signalled: false)
    }

    package func detach(from bus: any BusConnection) async {
        let watches = state.withLock { state in
            defer { state.watches = [] }
            return state.watches
        }
        lost()
        for watch in watches { await bus.removeMatch(watch) }
    }

    package func busUnavailable() {
        lost()
    }

    package func show(_ cards: [Card], current: Card?, alerts: [Alert]) {
        step { $0.show(cards) }
    }

    // MARK: Inputs

    /// The connection is gone: so are the views (the server drops a client's jobs when it leaves).
    private func lost() {
        state.withLock { state in
            state.bus = nil
            state.owner = nil
            state.ownerSignalled = false
            state.generation &+= 1
            state.outbox = [:]
            state.outboxOrder = []
            _ = state.plan.serverChanged(present: false)
        }
    }

    /// A new owner of the server's name (nil: none); `signalled`: told by `NameOwnerChanged`, which wins
    /// over the first `GetNameOwner`.
    private func serverChanged(_ owner: String?, signalled: Bool) {
        let changed = step { plan, state in
            if !signalled, state.ownerSignalled { return nil }
            if signalled { state.ownerSignalled = true }
            guard state.owner != owner || state.generation == 0 else { return nil }
            state.owner = owner
            state.generation &+= 1
            state.outbox = [:]
            state.outboxOrder = []
            return plan.serverChanged(present: owner != nil)
        }
        guard changed else { return }
        if let owner {
            state.withLock { $0.saidAbsent = false }
            logger.info("job views go to the JobViewServer \(owner)")
        } else {
            let said = state.withLock { state in
                defer { state.saidAbsent = true }
                return state.saidAbsent
            }
            let message = "no JobViewServer on the session bus: the job views wait for one"
            if said { logger.debug(message) } else { logger.info(message) }
        }
    }

    /// `cancelRequested`, believed only from the name's owner now (the plan checks the path is a view's).
    private func cancelRequested(_ signal: DBusMessage) {
        guard let path = signal.path else { return }
        step { plan, state in
            guard let owner = state.owner, signal.sender == owner else { return nil }
            return plan.cancelRequested(path: path.rawValue)
        }
    }

    // MARK: Effects

    /// One step of the plan under the lock, where the calls join the outbox (so they are queued in the
    /// order the plan made them); the rest is done outside it. `body` returning nil changes nothing.
    @discardableResult
    private func step(
        _ body: (inout JobViewPlan, inout State) -> [JobViewPlan.Effect]?
    ) -> Bool {
        let result = state.withLock { state -> ([JobViewPlan.Effect], UInt64, String?, (any BusConnection)?, Bool)? in
            var plan = state.plan
            guard let effects = body(&plan, &state) else { return nil }
            state.plan = plan
            for case let .send(path, calls) in effects {
                if let queued = state.outbox[path] {
                    state.outbox[path] = JobViewPlan.Call.merged(queued, calls)
                } else {
                    state.outbox[path] = calls
                    state.outboxOrder.append(path)
                }
            }
            let drain = !state.sending && !state.outboxOrder.isEmpty && state.bus != nil
            if drain { state.sending = true }
            return (effects, state.generation, state.owner, state.bus, drain)
        }
        guard let result else { return false }
        let (effects, generation, owner, bus, drain) = result
        if drain { runtime.spawn { [weak self] in await self?.drain() } }
        for effect in effects {
            switch effect {
            case let .request(ticket, requestID, capabilities):
                guard let bus, let owner else { continue }
                runtime.spawn { [weak self] in
                    await self?.request(
                        ticket: ticket, requestID: requestID, capabilities: capabilities, bus: bus, owner: owner,
                        generation: generation)
                }
            case let .answer(answer, requestID, revision):
                let answered = state.withLock { $0.answered }
                logger.info(
                    "job view: \(answer.rawValue) for task \(requestID) at revision \(revision.map(String.init) ?? "?")"
                )
                answered?(answer, requestID, revision)
            case .send:
                break
            }
        }
        return true
    }

    private func step(_ body: (inout JobViewPlan) -> [JobViewPlan.Effect]) {
        step { plan, _ in body(&plan) }
    }

    private func request(
        ticket: UInt64, requestID: String, capabilities: JobViewPlan.Capabilities, bus: any BusConnection,
        owner: String, generation: UInt64
    ) async {
        let path: String?
        do {
            let reply = try await bus.call(
                destination: owner, path: Self.serverPath, interface: Self.serverInterface, member: "requestView",
                [
                    .string(Self.desktopEntry), .int32(capabilities.rawValue),
                    // Shown at once: the server's half-second delay is for short file copies.
                    .vardict(["immediate": .boolean(true)]),
                ], expecting: "o", timeout: Self.callTimeout)
            path = reply[0].objectPathValue?.rawValue
        } catch {
            logger.info("the JobViewServer gave no view for task \(requestID): \(error)")
            path = nil
        }
        step { plan, state in
            guard state.generation == generation else { return nil }
            return path.map { plan.opened(ticket: ticket, path: $0) } ?? plan.refused(ticket: ticket)
        }
    }

    /// Sends the outbox, one call at a time, until it is empty.
    private func drain() async {
        while true {
            let next = state.withLock { state -> (String, [JobViewPlan.Call], any BusConnection, String, UInt64)? in
                guard let bus = state.bus, let owner = state.owner, !state.outboxOrder.isEmpty else {
                    state.sending = false
                    return nil
                }
                let path = state.outboxOrder.removeFirst()
                return (path, state.outbox.removeValue(forKey: path) ?? [], bus, owner, state.generation)
            }
            guard let next else { return }
            let (path, calls, bus, owner, generation) = next
            for call in calls {
                let (member, body) = Self.message(call)
                do {
                    _ = try await bus.call(
                        destination: owner, path: DBusObjectPath(path), interface: Self.viewInterface, member: member,
                        body, timeout: Self.callTimeout)
                } catch  where [.unknownObject, .unknownMethod, .unknownInterface].contains(error.kind) {
                    // `terminate` unexports the view before it answers on some servers: that is no drop.
                    if case .terminate = call { break }
                    logger.info("the JobViewServer dropped the job view \(path): \(error)")
                    step { plan, state in state.generation == generation ? plan.dropped(path: path) : nil }
                    break
                } catch {
                    logger.debug("job view call \(member) on \(path) failed: \(error)")
                }
            }
        }
    }

    static func message(_ call: JobViewPlan.Call) -> (String, [DBusValue]) {
        switch call {
        case let .setInfoMessage(text): ("setInfoMessage", [.string(text)])
        case let .setDescriptionField(number, name, value):
            ("setDescriptionField", [.uint32(number), .string(name), .string(value)])
        case let .clearDescriptionField(number): ("clearDescriptionField", [.uint32(number)])
        case let .setPercent(percent): ("setPercent", [.uint32(percent)])
        case let .setError(code): ("setError", [.uint32(code)])
        case let .terminate(text): ("terminate", [.string(text)])
        }
    }
}
