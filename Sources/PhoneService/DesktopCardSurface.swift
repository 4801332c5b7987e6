import DBusModel
import DesktopNotifications
import PhoneCore
import Platform
import Synchronization
import WireFormat

/// The task cards as desktop notifications (`org.freedesktop.Notifications`), one per task, replaced in place
/// (docs/desktop.md). `DesktopCardPlan` decides; this shell lives on the phone's session bus connection
/// (`SessionBus`, which reconnects after the bus goes), follows the server's name (a server that appears or
/// restarts gets every live card again), and makes the plan's calls one at a time on one task, so two updates
/// never reach the server out of order. A missing or crashing server never stops the client: the cards wait for
/// the next one.
package final class DesktopCardSurface: CardSurface, SessionBusSurface {
    private enum Job: Sendable {
        /// Ask the server who it is and follow its signals (at connection, and for every new owner of the name).
        case meetServer(any BusConnection)
        case notify(DesktopCardPlan.Post)
        case close(UInt32)
    }

    private struct State: Sendable {
        var plan = DesktopCardPlan()
        /// The watch on the server's name, on the connection it was added on.
        var watch: DBusMatchToken?
        /// Whether the task that performs the jobs runs (from the first connection on).
        var performing = false
        var timer: (any ScheduledWork)?
        var armedFor: Duration?
        var notifier: DesktopNotifier?
        /// The signal matches of `notifier`, removed when another server takes over.
        var matches: [DBusMatchToken] = []
        var answered: (@Sendable (Answer, String, UInt64?) -> Void)?
        var opened: (@Sendable (String) -> Void)?
        var serverFound: (@Sendable () -> Void)?
        /// The first missing server is said at info level, later ones at debug.
        var saidAbsent = false
    }

    /// The desktop file name given as `desktop-entry`.
    static let desktopEntry = "aiden-phone"

    private let state = Mutex(State())
    private let jobs: AsyncStream<Job>.Continuation
    private let stream: AsyncStream<Job>
    private let runtime: any Runtime
    private let logger: Logger

    package init(runtime: any Runtime, logger: Logger) {
        self.runtime = runtime
        self.logger = logger
        (stream, jobs) = AsyncStream.makeStream(of: Job.self)
    }

    /// `answered` gets each answer the person gave on a notification (answer, request id, the revision it
    /// showed); `opened` each click on a card (its request id); `serverFound` each time a server answers.
    package func onEvents(
        answered: @escaping @Sendable (Answer, String, UInt64?) -> Void,
        opened: @escaping @Sendable (String) -> Void, serverFound: @escaping @Sendable () -> Void
    ) {
        state.withLock {
            $0.answered = answered
            $0.opened = opened
            $0.serverFound = serverFound
        }
    }

    /// Follows the server's name on `bus` and meets the server there. A watch the bus refuses is logged: the
    /// server is still met now, only its later arrivals would be missed.
    package func attach(to bus: any BusConnection) async {
        let startPerforming = state.withLock { state in
            defer { state.performing = true }
            return !state.performing
        }
        if startPerforming {
            runtime.spawn { [self] in
                for await job in stream { await perform(job) }
            }
        }
        do {
            let watch = try await bus.watchNameOwner(DesktopNotifier.serviceName) { [weak self] owner in
                self?.ownerChanged(owner, bus: bus)
            }
            state.withLock { $0.watch = watch }
        } catch {
            logger.warning("cannot follow the notification server's name on the session bus: \(error)")
        }
        jobs.yield(.meetServer(bus))
    }

    package func detach(from bus: any BusConnection) async {
        let watch = state.withLock { state in
            defer { state.watch = nil }
            return state.watch
        }
        if let watch { await bus.removeMatch(watch) }
    }

    package func busUnavailable() {
        feed(.serverVanished)
    }

    /// `NameOwnerChanged` for the server's name: a new owner is met (and gets the live cards), none means wait.
    private func ownerChanged(_ owner: String?, bus: any BusConnection) {
        if owner == nil {
            logger.info("the desktop notification server left the session bus")
            feed(.serverVanished)
        } else {
            jobs.yield(.meetServer(bus))
        }
    }

    package func show(_ cards: [Card], current: Card?, alerts: [Alert]) {
        feed(.cards(cards, alerts: alerts))
    }

    /// One step of the plan; its D-Bus calls go to the job queue in order, its answers to the client.
    private func feed(_ input: DesktopCardPlan.Input) {
        let now = runtime.monotonicNow()
        let (effects, handlers) = state.withLock { state in
            let effects = state.plan.handle(input, at: now)
            for effect in effects {
                switch effect {
                case let .notify(post): jobs.yield(.notify(post))
                case let .close(id): jobs.yield(.close(id))
                case .answer, .open: break
                }
            }
            rearm(&state)
            return (effects, (state.answered, state.opened))
        }
        for effect in effects {
            switch effect {
            case let .answer(answer, requestID, revision):
                logger.info(
                    "notification: \(answer.rawValue) for task \(requestID) at revision \(revision.map(String.init) ?? "?")"
                )
                handlers.0?(answer, requestID, revision)
            case let .open(requestID):
                handlers.1?(requestID)
            case .notify, .close:
                break
            }
        }
    }

    /// Arms the one timer for the plan's next dismissal time.
    private func rearm(_ state: inout State) {
        let next = state.plan.nextDeadline
        guard next != state.armedFor else { return }
        state.timer?.cancel()
        state.armedFor = next
        state.timer = next.map { at in runtime.schedule(at: at) { [weak self] in self?.feed(.deadlineReached) } }
    }

    private func perform(_ job: Job) async {
        switch job {
        case let .meetServer(bus):
            await meet(bus)
        case let .notify(post):
            guard let notifier = state.withLock({ $0.notifier }) else {
                feed(.postFailed(post.card.subject))
                return
            }
            do {
                let id = try await notifier.notify(Self.notification(post))
                feed(.posted(post.card.subject, id: id))
            } catch {
                logger.warning("desktop notification failed: \(error)")
                feed(.postFailed(post.card.subject))
            }
        case let .close(id):
            guard let notifier = state.withLock({ $0.notifier }) else { return }
            do {
                try await notifier.close(id)
            } catch {
                logger.debug("closing notification \(id) failed: \(error)")
            }
        }
    }

    /// Asks the server who it is, follows its signals, and gives it every live card.
    private func meet(_ bus: any BusConnection) async {
        switch await DesktopNotifier.connect(bus: bus) {
        case let .success(notifier):
            let old = state.withLock { state -> [DBusMatchToken] in
                defer { state.matches = [] }
                return state.matches
            }
            for token in old { await bus.removeMatch(token) }
            var matches: [DBusMatchToken] = []
            do {
                matches = try await notifier.subscribe { [weak self] signal in
                    switch signal {
                    case let .actionInvoked(id, key): self?.feed(.invoked(id: id, key: key))
                    case let .closed(id, reason): self?.feed(.closed(id: id, reason: reason))
                    }
                }
            } catch {
                logger.warning("notification buttons will do nothing: cannot follow the server's signals: \(error)")
            }
            let found = state.withLock { state in
                state.notifier = notifier
                state.matches = matches
                state.saidAbsent = false
                return state.serverFound
            }
            logger.info("desktop notifications via \(notifier.server)")
            feed(.serverAppeared(DesktopCardPlan.Server(name: notifier.serverName)))
            found?()
        case let .failure(error):
            let said = state.withLock { state in
                defer { state.saidAbsent = true }
                state.notifier = nil
                return state.saidAbsent
            }
            let message = "no desktop notification server on the session bus (\(error)): the cards wait for one"
            if said { logger.debug(message) } else { logger.info(message) }
            feed(.serverVanished)
        }
    }

    /// The D-Bus notification for one post: the card's words and buttons, its urgency, the hints.
    package static func notification(_ post: DesktopCardPlan.Post) -> DesktopNotification {
        let card = post.card
        let tag: String? =
            switch card.subject {
            case let .task(requestID): "aiden-phone-" + requestID
            case .connection: nil
            }
        return DesktopNotification(
            summary: card.summary, body: card.body,
            urgency: DesktopNotification.Urgency(rawValue: post.urgency.rawValue) ?? .normal,
            category: card.category, expireTimeoutMilliseconds: card.expireMilliseconds, replacesID: post.replacesID,
            actions: card.buttons.map { DesktopNotification.Action(key: $0.key, label: $0.label) },
            progress: card.progress, desktopEntry: desktopEntry, tag: tag, resident: card.resident)
    }
}
