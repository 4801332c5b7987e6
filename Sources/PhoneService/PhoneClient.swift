import Logging
import PhoneCore
import Platform
import ServiceManager
import Synchronization
import WireFormat

/// Runs a `PhoneSession` on the runtime's serial executor: the Wake receiver (libdbus or UDP), the
/// USB thread, HTTP answers, timers and signals only hand inputs over with `submit`; each input is
/// one step of the session, and its effects are performed in order on the executor. Nothing here
/// decides; it only moves values between the session and the world.
///
/// No effect blocks the executor for long: output goes to bounded backlogs (`OutputChannel`), HTTP to
/// the transport's own lane, the alert record to a writer lane that keeps only the newest record,
/// desktop notifications to the bus asynchronously. An alert waits for the record saved before it:
/// it is shown (logged, handed to the notifiers) only once that record's write has ended, so a
/// crash between the two finds the record durable and repeats nothing.
package final class PhoneClient: Sendable {
    /// What only the executor touches (held without a lock, `ExecutorConfined`).
    private struct State {
        var session: PhoneSession
        /// The one armed session deadline; re-arming cancels the previous one.
        var timer: (any ScheduledWork)?
        /// The task cards the surfaces were last given.
        var surfacedCards: [Card] = []
        var surfacedCurrent: Card?
        /// Alerts given during the fetch under way, for the surfaces when it ends.
        var surfaceAlerts: [Alert] = []
        /// An update that carries alerts waits for their record's write (once means once); cards that
        /// change meanwhile join it, so the surfaces never see an older card after a newer one.
        var heldSurface: HeldSurfaceUpdate?
    }

    /// The newest cards and the alerts waiting to be surfaced, and how many record writes they still wait for.
    private struct HeldSurfaceUpdate: Sendable {
        var cards: [Card]
        var current: Card?
        var alerts: [Alert] = []
        var waits = 0
    }

    /// How long one step may take before the client counts as wedged.
    private static let stuckAfter: Duration = .seconds(10)

    private let state: ExecutorConfined<State>
    /// When the current step began (nil: idle): written by the executor, read by the watchdog.
    private let busySince = Mutex<Duration?>(nil)
    private let transport: any BoardTransport
    private let runtime: any Runtime
    private let output: any PhoneOutput
    private let notifiers: [any AlertNotifier]
    private let surfaces: [any CardSurface]
    private let recordWriter: RecordWriter
    private let logger: Logger
    /// The live status line (`reportStatus`).
    private let status: StatusReporter

    package init(
        session: PhoneSession, transport: any BoardTransport, runtime: any Runtime,
        output: any PhoneOutput, notifiers: [any AlertNotifier], surfaces: [any CardSurface] = [],
        saveRecord: @escaping @Sendable (AlertRecord) throws(AtomicWriteError) -> Void, logger: Logger,
        recordLane: Lane = Lane("aiden.phone.record")
    ) {
        self.state = ExecutorConfined(State(session: session), on: runtime)
        self.transport = transport
        self.runtime = runtime
        self.output = output
        self.notifiers = notifiers
        self.surfaces = surfaces
        self.recordWriter = RecordWriter(
            save: saveRecord, lane: recordLane, logger: logger,
            whenWritten: { [runtime] shows in runtime.enqueue { shows.forEach { $0() } } })
        self.logger = logger
        status = StatusReporter(runtime: runtime)
    }

    /// Whether the client is alive for the watchdog: no step has been running for longer than
    /// `stuckAfter` (effects never block that long).
    package func isResponsive() -> Bool {
        let now = runtime.monotonicNow()
        guard let since = busySince.withLock({ $0 }) else { return true }
        return now - since < Self.stuckAfter
    }

    /// The session as it is now, on the executor (the card's keys; a test asks with `runtime.perform`).
    package var session: PhoneSession { state.withValue { $0.session } }

    /// Hands an input to the executor; returns at once.
    package func submit(_ input: PhoneSession.Input) {
        runtime.enqueue { [self] in step(input) }
    }

    /// The person answered `requestID` (at `revision`) on one of the surfaces, a key or a notification's
    /// button: a new answer id for it, so a retried send is recognised by the board as the same answer.
    package func submitAnswer(_ answer: Answer, requestID: String, revision: UInt64?) {
        var random = SystemRandomNumberGenerator()
        submit(
            .personAnswered(
                answer, requestID: requestID, answerID: Answer.newAnswerID(using: &random), revision: revision))
    }

    /// One step of the session and its effects, on the executor.
    private func step(_ input: PhoneSession.Input) {
        let now = runtime.monotonicNow()
        busySince.withLock { $0 = now }
        let effects = state.withValue { $0.session.handle(input, at: now) }
        effects.forEach(perform)
        surface(alerts: effects.compactMap { if case let .alert(alert) = $0 { alert } else { nil } })
        busySince.withLock { $0 = nil }
        status.changed()
    }

    /// Gives the surfaces the task cards once a fetch has ended (or after a step outside one) that changed them
    /// or gave alerts: a fetch reads the card and then the events whose alerts it gives, and one update with the
    /// alert's urgency is what a server must get, not a routine one and then the same card again (Plasma drops
    /// an identical notification within a second). The alerts' record was handed to the writer first, in the
    /// steps' effects, and an update with alerts is shown only once that record is written.
    private func surface(alerts: [Alert]) {
        guard !surfaces.isEmpty else { return }
        let due = state.withValue { state -> ([Card], Card?, [Alert])? in
            state.surfaceAlerts += alerts
            guard !state.session.isFetching else { return nil }
            let cards = state.session.taskCards
            let current = state.session.card
            let alerts = state.surfaceAlerts
            guard cards != state.surfacedCards || current != state.surfacedCurrent || !alerts.isEmpty else {
                return nil
            }
            state.surfacedCards = cards
            state.surfacedCurrent = current
            state.surfaceAlerts = []
            return (cards, current, alerts)
        }
        guard let (cards, current, alerts) = due else { return }
        let held = state.withValue { state -> (hold: Bool, wait: Bool) in
            guard !alerts.isEmpty || state.heldSurface != nil else { return (false, false) }
            var update = state.heldSurface ?? HeldSurfaceUpdate(cards: cards, current: current)
            update.cards = cards
            update.current = current
            update.alerts += alerts
            if !alerts.isEmpty { update.waits += 1 }
            state.heldSurface = update
            return (true, !alerts.isEmpty)
        }
        if held.wait {
            recordWriter.afterWritten { [self] in releaseHeldSurface() }
        } else if !held.hold {
            for surface in surfaces { surface.show(cards, current: current, alerts: alerts) }
        }
    }

    /// One record write the held update waited for has ended; the last one shows it.
    private func releaseHeldSurface() {
        let due = state.withValue { state -> HeldSurfaceUpdate? in
            guard var update = state.heldSurface else { return nil }
            update.waits -= 1
            guard update.waits == 0 else {
                state.heldSurface = update
                return nil
            }
            state.heldSurface = nil
            return update
        }
        guard let update = due else { return }
        for surface in surfaces { surface.show(update.cards, current: update.current, alerts: update.alerts) }
    }

    /// Sends the session's status line to `send` (the daemon's sd_notify `STATUS=`) now and after each step that
    /// changes it, on the executor. It needs no look of its own: the line is the session's and the clocks', and
    /// the session steps at least once per safety fetch (`FetchScheduler`, a minute), which is when a stepped
    /// wall clock shows in the last Wake's time; a timer of its own would wake an idle phone once more a minute.
    package func reportStatus(_ send: @escaping @Sendable (String) -> Void) {
        status.start(
            line: { [weak self] in
                guard let self else { return nil }
                let (now, wall) = (runtime.monotonicNow(), runtime.wallNow())
                return state.withValue { $0.session.statusLine(at: now, wall: wall) }
            }, send)
    }

    private func perform(_ effect: PhoneSession.Effect) {
        switch effect {
        case let .send(unstamped):
            // An app-state report carries the phone's wall clock as it leaves (`phone_time`).
            let request = unstamped.stamped(at: runtime.wallNow())
            transport.send(request) { [weak self] response in self?.submit(.answer(request, response)) }
        case let .scheduleDeadline(at):
            let timer = runtime.schedule(at: at) { [weak self] in self?.step(.deadlineReached) }
            let previous = state.withValue { state in
                defer { state.timer = timer }
                return state.timer
            }
            previous?.cancel()
        case let .emit(event):
            output.emit(event, at: runtime.wallNow())
        case let .alert(alert):
            // The session saved the record holding this alert's key first; shown once that write has ended.
            recordWriter.afterWritten { [self] in show(alert) }
        case let .saveRecord(record):
            recordWriter.save(record)
        case let .log(level, message, fields):
            logger.log(level, message, fields: fields)
        }
    }

    /// Logs the alert and hands it to every notifier, on the executor.
    private func show(_ alert: Alert) {
        var fields: [LogField: String] = [.transition: alert.transition.rawValue]
        if let requestID = alert.requestID { fields[.requestID] = requestID }
        logger.notice("alert: \(AlertText.line(alert))", fields: fields)
        notifiers.forEach { $0.deliver(alert) }
    }

    /// Waits until the newest alert record is saved (shutdown, tests); the alerts that waited for it are then
    /// on the executor's queue.
    package func flushRecord() {
        recordWriter.flush()
    }
}

/// Saves the alert record off the executor, newest first: an fsync on a slow disk delays only the
/// record (and the alerts waiting for it), and a record superseded while waiting is never written.
/// Work handed to `afterWritten` runs once every record saved before it has been written (durable, or
/// failed and logged: an alert is never dropped for a record that could not be saved).
private final class RecordWriter: Sendable {
    private struct State: Sendable {
        /// The record waiting to be written, and the number of the last save it answers.
        var newest: AlertRecord?
        var requested: UInt64 = 0
        /// Saves up to this number have been written.
        var written: UInt64 = 0
        var writing = false
        /// Work waiting for the write of save number `after`.
        var waiting: [(after: UInt64, work: @Sendable () -> Void)] = []
    }

    private let save: @Sendable (AlertRecord) throws(AtomicWriteError) -> Void
    private let lane: Lane
    private let state = Mutex(State())
    private let logger: Logger
    /// Hands work that a write released back to the client's executor, in order.
    private let whenWritten: @Sendable ([@Sendable () -> Void]) -> Void

    init(
        save: @escaping @Sendable (AlertRecord) throws(AtomicWriteError) -> Void, lane: Lane,
        logger: Logger, whenWritten: @escaping @Sendable ([@Sendable () -> Void]) -> Void
    ) {
        self.save = save
        self.lane = lane
        self.logger = logger
        self.whenWritten = whenWritten
    }

    func save(_ record: AlertRecord) {
        let start = state.withLock { state -> Bool in
            state.requested += 1
            state.newest = record
            guard !state.writing else { return false }  // the write under way takes this newer record next
            state.writing = true
            return true
        }
        if start { lane.run { [self] in writeNewest() } }
    }

    /// Runs `work` once every record saved so far is written, always through `whenWritten`: the executor's queue,
    /// behind the work earlier writes released, so alerts are shown in the order they were given even when a
    /// fast write has already ended.
    func afterWritten(_ work: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            guard state.written < state.requested else { return true }
            state.waiting.append((state.requested, work))
            return false
        }
        if now { whenWritten([work]) }
    }

    func flush() { lane.drain() }

    private func writeNewest() {
        while let (record, number) = takeNewest() {
            do {
                try save(record)
            } catch {
                logger.error("could not save the alert record (a restart may repeat alerts): \(error)")
            }
            let released = state.withLock { state -> [@Sendable () -> Void] in
                state.written = number
                let ready = state.waiting.filter { $0.after <= number }.map(\.work)
                state.waiting.removeAll { $0.after <= number }
                return ready
            }
            if !released.isEmpty { whenWritten(released) }
        }
    }

    /// The record to write next and the save it answers; nil (and no longer writing) when none waits.
    private func takeNewest() -> (AlertRecord, UInt64)? {
        state.withLock { state in
            guard let record = state.newest else {
                state.writing = false
                return nil
            }
            state.newest = nil
            return (record, state.requested)
        }
    }
}
