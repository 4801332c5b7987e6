import Dispatch
import Logging
import PhoneCore
import Platform
import Synchronization

/// Runs a `PhoneSession` on the runtime's serial executor: the Wake receiver (libdbus or UDP), the
/// USB thread, HTTP answers, timers and signals only hand inputs over with `submit`; each input is
/// one step of the session, and its effects are performed in order on the executor. Nothing here
/// decides; it only moves values between the session and the world.
///
/// No effect blocks the executor for long: output goes to bounded queues (`OutputChannel`), HTTP to
/// the transport's own queue, the alert record to a writer queue that keeps only the newest record,
/// desktop notifications to the bus asynchronously.
package final class PhoneClient: Sendable {
    private struct State: Sendable {
        var session: PhoneSession
        /// The one armed session deadline; re-arming cancels the previous one.
        var timer: (any ScheduledWork)?
        /// When the current step began (nil: idle), for the watchdog.
        var busySince: Duration?
        /// Where the live status goes (`reportStatus`) and the text sent last.
        var statusSend: (@Sendable (String) -> Void)?
        var lastStatus: String?
    }

    /// How long one step may take before the client counts as wedged.
    private static let stuckAfter: Duration = .seconds(10)

    /// Touched only on the executor, except `busySince`, which the watchdog reads.
    private let state: Mutex<State>
    private let transport: any BoardTransport
    private let runtime: any Runtime
    private let output: any PhoneOutput
    private let notifiers: [any AlertNotifier]
    private let recordWriter: RecordWriter
    private let logger: Logger

    package init(
        session: PhoneSession, transport: any BoardTransport, runtime: any Runtime,
        output: any PhoneOutput, notifiers: [any AlertNotifier],
        saveRecord: @escaping @Sendable (AlertRecord) throws(AtomicWriteError) -> Void, logger: Logger,
        recordQueue: DispatchQueue? = DispatchQueue(label: "aiden.phone.record")
    ) {
        self.state = Mutex(State(session: session))
        self.transport = transport
        self.runtime = runtime
        self.output = output
        self.notifiers = notifiers
        self.recordWriter = RecordWriter(save: saveRecord, queue: recordQueue, logger: logger)
        self.logger = logger
    }

    /// Whether the client is alive for the watchdog: no step has been running for longer than
    /// `stuckAfter` (effects never block that long).
    package func isResponsive() -> Bool {
        let now = runtime.monotonicNow()
        return state.withLock { state in
            guard let since = state.busySince else { return true }
            return now - since < Self.stuckAfter
        }
    }

    /// The session as it is now (for status and tests).
    package var session: PhoneSession { state.withLock { $0.session } }

    /// Hands an input to the executor; returns at once.
    package func submit(_ input: PhoneSession.Input) {
        runtime.enqueue { [self] in step(input) }
    }

    /// One step of the session and its effects, on the executor.
    private func step(_ input: PhoneSession.Input) {
        let effects = state.withLock { state in
            let now = runtime.monotonicNow()
            state.busySince = now
            return state.session.handle(input, at: now)
        }
        effects.forEach(perform)
        state.withLock { $0.busySince = nil }
        sendStatus(always: false)
    }

    /// Sends the session's status line to `send` (the daemon's sd_notify `STATUS=`) now and after each step that
    /// changes it, and looks again every `interval`, sending only a changed line: all on the executor.
    package func reportStatus(every interval: Duration = .seconds(60), _ send: @escaping @Sendable (String) -> Void) {
        runtime.enqueue { [self] in
            state.withLock { $0.statusSend = send }
            sendStatus(always: true)
        }
        scheduleStatusTick(interval)
    }

    private func scheduleStatusTick(_ interval: Duration) {
        runtime.schedule(after: interval) { [weak self] in
            self?.sendStatus(always: false)
            self?.scheduleStatusTick(interval)
        }
    }

    /// On the executor: the status line to the daemon, when it changed (or `always`).
    private func sendStatus(always: Bool) {
        let now = runtime.monotonicNow()
        let wall = runtime.wallNow()
        let due = state.withLock { state -> (String, @Sendable (String) -> Void)? in
            guard let send = state.statusSend else { return nil }
            let text = state.session.statusLine(at: now, wall: wall)
            guard always || text != state.lastStatus else { return nil }
            state.lastStatus = text
            return (text, send)
        }
        if let (text, send) = due { send(text) }
    }

    private func perform(_ effect: PhoneSession.Effect) {
        switch effect {
        case let .send(unstamped):
            // An app-state report carries the phone's wall clock as it leaves (`phone_time`).
            let request = unstamped.stamped(at: runtime.wallNow())
            transport.send(request) { [weak self] response in self?.submit(.answer(request, response)) }
        case let .scheduleDeadline(at):
            let timer = runtime.schedule(at: at) { [weak self] in self?.step(.deadlineReached) }
            let previous = state.withLock { state in
                defer { state.timer = timer }
                return state.timer
            }
            previous?.cancel()
        case let .emit(event):
            output.emit(event, at: runtime.wallNow())
        case let .alert(alert):
            var fields: [LogField: String] = [.transition: alert.transition.rawValue]
            if let requestID = alert.requestID { fields[.requestID] = requestID }
            logger.notice("alert: \(AlertText.line(alert))", fields: fields)
            notifiers.forEach { $0.deliver(alert) }
        case let .saveRecord(record):
            recordWriter.save(record)
        case let .log(level, message, fields):
            logger.log(level, message, fields: fields)
        }
    }

    /// Waits until the newest alert record is saved (shutdown, tests).
    package func flushRecord() {
        recordWriter.flush()
    }
}

/// Saves the alert record off the executor, newest first: an fsync on a slow disk delays only the
/// record, and a record superseded while waiting is never written.
private final class RecordWriter: Sendable {
    private let save: @Sendable (AlertRecord) throws(AtomicWriteError) -> Void
    private let queue: DispatchQueue?
    private let newest = Mutex<AlertRecord?>(nil)
    private let logger: Logger

    init(
        save: @escaping @Sendable (AlertRecord) throws(AtomicWriteError) -> Void, queue: DispatchQueue?,
        logger: Logger
    ) {
        self.save = save
        self.queue = queue
        self.logger = logger
    }

    func save(_ record: AlertRecord) {
        let idle = newest.withLock { newest in
            defer { newest = record }
            return newest == nil
        }
        guard idle else { return }  // the pending write will take this newer record
        if let queue { queue.async { [self] in writeNewest() } } else { writeNewest() }
    }

    func flush() { queue?.sync {} }

    private func writeNewest() {
        guard let record = newest.withLock({ $0 }) else { return }
        do {
            try save(record)
        } catch {
            logger.error("could not save the alert record (a restart may repeat alerts): \(error)")
        }
        // A newer record that arrived during the write goes next.
        let again = newest.withLock { newest -> Bool in
            if newest == record {
                newest = nil
                return false
            }
            return true
        }
        if again { writeNewest() }
    }
}
