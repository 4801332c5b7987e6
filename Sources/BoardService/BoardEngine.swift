import BoardAPI
import Dispatch
import FoundationEssentials
import LiveActivity
import Logging
import NetworkAddress
import Platform
import ServiceManager
import Synchronization
import WakeProtocol
import WireFormat

/// The board's state and its rules in motion, as one writer and many readers.
///
/// The writer is the runtime's serial executor: agent requests, retention expiry, lazy writes and
/// Wake decisions run there, one at a time. A change is made on a copy, made durable as its
/// `Durability` asks, and only then committed and published. A change that must be durable (a
/// start, an end, a handoff) is on disk before anyone sees it or it is acknowledged, so nothing
/// needs rolling back; progress updates and retention pruning may be published up to a second
/// before their lazy write (docs/protocol.md §7.1). One case is neither: when only the directory sync after
/// the rename fails, the file already holds the change, so it stands, is written again lazily, and the
/// agent is told it is made but not known to be durable (`storage_unconfirmed`). Every accepted change
/// then feeds the Wake coalescer, so the Wake follows the publication it announces.
///
/// The phone's requests (libmicrohttpd's threads) read the last publication, an immutable value
/// with every answer body encoded, and never wait for the writer or the disk. The two that ask
/// something of the board, a pairing window and the person's answer to a task (a store change like
/// an agent's write, durable before it is acknowledged), are answered later (`HTTPReply.later`):
/// their connection waits for the executor, the listener's thread does not, so a phone's reads on
/// its other connections are served while the writer is in a slow fsync.
package final class BoardEngine: Sendable {
    package struct Settings: Sendable {
        package var version: String
        package var liveActivityEnabled: Bool
        package var retention: Duration
        package var coalesceWindow: Duration
        /// How far behind ordinary progress updates may be written (docs/protocol.md §7.1: at most 1 s).
        package var lazyWriteDelay: Duration = .seconds(1)
        package var sequenceBlockSize: UInt64 = SequenceReservation.defaultBlockSize
        /// How long one job of the writer may run before the watchdog calls the board wedged.
        package var stuckAfter: Duration = .seconds(20)

        package init(version: String, liveActivityEnabled: Bool, retention: Duration, coalesceWindow: Duration) {
            self.version = version
            self.liveActivityEnabled = liveActivityEnabled
            self.retention = retention
            self.coalesceWindow = coalesceWindow
        }
    }

    /// What only the writer touches. Its lock is only ever taken on the executor, so it is never contended.
    private struct Writer: Sendable {
        var board: BoardState
        var wakeState: WakeState
        var coalescer: WakeCoalescer
        var reservation: SequenceReservation
        var nextReason: WakeReason = .system
        var wakeFacts: WakeFacts
        var tasksDirty = false
        var lazyWriteScheduled = false
        /// Monotonic instants, like every deadline (retention and staleness follow elapsed time).
        var expiryScheduledFor: Duration?
        /// When the next ended task leaves (nil: none ended), so jobs only prune when one is due.
        var nextExpiry: Duration?
        /// When to try again to save the end of abandoned tasks after the write failed (nil: not failing).
        var staleRetryDue: Duration?
        var random = SystemRandomNumberGenerator()
        /// Failures that repeat for as long as their cause lasts (a full disk, no registration with bluetoothd):
        /// logged when they start, summarised at most once a minute, and when they end.
        var tasksWrites = RepeatedFailureLog("writing tasks.json")
        var sequenceMarks = RepeatedFailureLog("persisting the Wake sequence mark")
        var deliveries = RepeatedFailureLog("delivering Wakes", level: .warning)
        /// The agents' long-polls, held until a change the writer publishes decides them or their timeout passes.
        var waits: [UInt64: HeldWait] = [:]
        var nextWaitID: UInt64 = 0
    }

    /// One long-poll held by the writer: what decides it, where its answer goes, and its timeout's timer.
    private struct HeldWait: Sendable {
        let wait: AgentWait
        let respond: @Sendable (HTTPResponse) -> Void
        let timer: any ScheduledWork
    }

    /// What readers see, replaced whole by the writer: one reference to take per request.
    private final class Publication: Sendable {
        let board: PublishedBoard
        let wakeFacts: WakeFacts

        init(board: PublishedBoard, wakeFacts: WakeFacts) {
            self.board = board
            self.wakeFacts = wakeFacts
        }
    }

    /// Reader-side state that never involves the disk.
    private struct PhoneSide: Sendable {
        var appState: PhoneAppState?
        /// Which clock stamps (the phone's reports may move it); read by the writer for every stamp.
        var clock = BoardClock()
        var refusalLog = RefusalLog()
    }

    private let writer: Mutex<Writer>
    private let publication: Mutex<Publication>
    private let phoneSide = Mutex(PhoneSide())
    /// The live status line (`reportStatus`).
    private let status: StatusReporter
    /// When the writer's current job began (nil: idle), for the watchdog.
    private let writerBusySince = Mutex<Duration?>(nil)
    private let settings: Settings
    private let phoneRouter: PhoneRouter
    private let agentRouter = AgentRouter()
    private let directory: BoardStateDirectory
    private let sink: any WakeSink
    private let runtime: any Runtime
    private let logger: Logger
    private let usbFacts: @Sendable () -> USBLinkFacts
    private let boardAddresses: @Sendable () -> [IPAddress]?
    private let instanceID: String
    /// Where a pairing request waits for the executor (the peripheral's lifecycle runs there), off the listener's
    /// thread. Serial: one phone, and a window at a time.
    private let pairingQueue = DispatchQueue(label: "aiden.board.pairing")

    /// `boardAddresses` lists the board's own interface addresses, read for each pairing request and each
    /// connection from the link when no loopback listener is configured (a request from one of them comes from
    /// the board itself); nil when they cannot be read, which refuses those.
    package init(
        settings: Settings, loaded: BoardStateDirectory.Loaded, directory: BoardStateDirectory,
        policy: AccessPolicy, sink: any WakeSink, runtime: any Runtime, logger: Logger,
        usbFacts: @escaping @Sendable () -> USBLinkFacts = { USBLinkFacts(link: "unknown") },
        boardAddresses: @escaping @Sendable () -> [IPAddress]? = { [] }
    ) {
        self.settings = settings
        self.boardAddresses = boardAddresses
        self.phoneRouter = PhoneRouter(
            policy: policy, liveActivityEnabled: settings.liveActivityEnabled, retention: settings.retention)
        self.directory = directory
        self.sink = sink
        self.runtime = runtime
        self.logger = logger
        self.usbFacts = usbFacts
        status = StatusReporter(runtime: runtime)
        var random = SystemRandomNumberGenerator()
        instanceID = String(random.next(), radix: 16)
        var board = BoardState(store: loaded.store, epoch: loaded.wake.epoch, instanceID: instanceID)
        // The monotonic clock started again: each loaded task continues from the age `tasks.json` recorded.
        board.store.anchorClocks(now: runtime.wallNow(), instant: runtime.monotonicNow())
        let wakeFacts = WakeFacts(transport: sink.transportName)
        publication = Mutex(
            Publication(
                board: board.published(
                    now: runtime.wallNow(), instant: runtime.monotonicNow(), retention: settings.retention),
                wakeFacts: wakeFacts))
        writer = Mutex(
            Writer(
                board: board, wakeState: loaded.wake,
                coalescer: WakeCoalescer(window: settings.coalesceWindow),
                reservation: SequenceReservation(
                    persistedHighWater: loaded.wake.sequenceHighWater,
                    blockSize: settings.sequenceBlockSize),
                wakeFacts: wakeFacts))
    }

    /// Announces the (re)started board with one `system` Wake and arms the retention timer.
    package func start() {
        runtime.perform {
            onWriter { writer in
                noteChange(&writer)
                scheduleExpiry(&writer)
            }
        }
    }

    // MARK: Requests

    /// A request on an ECM (or loopback) listener: answered from the last publication, on the
    /// calling thread, without waiting for the writer. The exceptions are answered later, never holding the
    /// calling thread: a pairing request from the phone, which waits (on a queue of its own) for the executor,
    /// where the peripheral decides when the window closes, and the person's answer to a task the router
    /// accepted on the published board, which the writer records (and makes durable) first.
    /// `admitted`: `admitPhone` has passed this request already (the ECM server runs it on every request's headers
    /// first), so the access policy is not asked again.
    package func handlePhone(_ request: HTTPRequest, admitted: Bool = false) -> HTTPReply {
        let current = publication.withLock { $0 }
        let (now, instant) = clockNow()
        let result = phoneRouter.handle(
            request, board: current.board, facts: facts(wake: current.wakeFacts, path: request.path), now: now,
            instant: instant, admitted: admitted)
        if let denial = result.denial { logDenial(denial, request: request) }
        guard let effect = result.effect else { return .now(result.response) }
        switch effect {
        case let .openPairingWindow(seconds, phone, phoneBonded):
            return .later { [self] respond in
                pairingQueue.async { [self] in
                    respond(
                        openPairingWindow(
                            seconds: seconds, forgetting: phone, unlessBonded: phoneBonded, for: request, now: now))
                }
            }
        case let .recordAnswer(id, answer):
            return .later { [self] respond in
                runtime.enqueue { [self] in
                    respond(onWriter { writer in recordAnswer(id: id, answer, for: request, &writer) })
                }
            }
        case let .recordPhoneAppState(state):
            recordPhoneAppState(state)
            return .now(result.response)
        }
    }

    /// When an ECM connection opens: the 403 it is answered with instead of being served, if its peer may not be
    /// (`PhoneRouter.refuseConnection`: the link or loopback, the board itself only with a loopback listener, and
    /// arrived on `[http] interface`), logged, rate-limited. The board's addresses are read only for a peer that
    /// would otherwise be served; when they cannot be read the peer is refused.
    package func refusePhoneConnection(peer: IPAddress, local: IPAddress?, interface: String?) -> HTTPResponse? {
        let refused = phoneRouter.refuseConnection(peer: peer, local: local, interface: interface) { address in
            boardAddresses()?.contains { $0.unmapped == address }
        }
        guard let refused, let denial = refused.denial else { return nil }
        logRefusal("refused a connection from \(peer.unmapped): \(denial)", peer: "\(peer.unmapped)")
        return refused.response
    }

    /// When an ECM request's headers are in, before its body is read: the router's refusal, if any (logged).
    package func admitPhone(_ request: HTTPRequest) -> HTTPResponse? {
        guard let refused = phoneRouter.admit(request, boardAddresses: boardAddresses) else { return nil }
        if let denial = refused.denial { logDenial(denial, request: request) }
        return refused.response
    }

    /// A process on the agent socket went over its connection limit (its newest connection was shut down).
    package func refusedAgentConnection(_ peer: HTTPRequest.Credentials, open: Int, limit: Int) {
        logRefusal(
            "agent socket: refused a connection from \(peer): it has \(open - 1) open (at most \(limit))",
            peer: "\(peer)")
    }

    /// A request on the agent's Unix socket: handed to the writer, answered when it is done (and,
    /// for a change that must be durable, when it is on disk). A long-poll is answered as if its timeout were 0:
    /// the shell sends those to `handleAgent(_:respond:)`.
    package func handleAgent(_ request: HTTPRequest) -> HTTPResponse {
        runtime.perform { onWriter { writer in write(request, &writer).response } }
    }

    /// A request on the agent's Unix socket that may be a long-poll (`AgentRouter.mayWait`), answered through
    /// `respond` without the caller waiting: at once when the board decides it already, else when a change the writer
    /// publishes decides it (docs/protocol.md §6.6) or its timeout passes. Holding it costs the writer nothing
    /// between changes.
    package func handleAgent(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        runtime.enqueue { [self] in
            onWriter { writer in
                let (response, wait) = write(request, &writer)
                guard let wait else { return respond(response) }
                let id = writer.nextWaitID
                writer.nextWaitID += 1
                let timer = runtime.schedule(after: wait.timeout) { [weak self] in self?.waitTimedOut(id) }
                writer.waits[id] = HeldWait(wait: wait, respond: respond, timer: timer)
            }
        }
    }

    /// How many long-polls the writer holds now (tests, the bench).
    package var heldWaits: Int { runtime.perform { onWriter { $0.waits.count } } }

    private func waitTimedOut(_ id: UInt64) {
        onWriter { writer in
            guard let held = writer.waits.removeValue(forKey: id) else { return }
            held.respond(held.wait.timedOut(on: &writer.board))
        }
    }

    /// After a publication: answers every held long-poll the board now decides.
    private func answerWaits(_ writer: inout Writer) {
        for (id, held) in writer.waits {
            guard let answer = held.wait.answer(on: &writer.board) else { continue }
            held.timer.cancel()
            writer.waits[id] = nil
            held.respond(answer)
        }
    }

    private func write(_ request: HTTPRequest, _ writer: inout Writer) -> (response: HTTPResponse, wait: AgentWait?) {
        pruneExpired(&writer)
        sweepStale(&writer)
        var working = writer.board
        let (now, instant) = clockNow()
        let result = agentRouter.handle(
            request, state: &working, facts: facts(wake: writer.wakeFacts, path: request.path),
            now: now, using: &writer.random)
        working.store.anchorClocks(now: now, instant: instant)
        guard let change = result.change else {
            writer.board = working  // answers encoded on the way stay cached
            return (result.response, result.wait)
        }
        let failed = commit(
            working, change, what: "\(request.method) \(request.path) from \(request.peerDescription)", &writer)
        return (failed ?? result.response, nil)
    }

    /// Makes `working`, which holds `change`, the board: durable first when the change must be, then published
    /// and announced. Nil when done; else the error to answer with (`storage_unconfirmed`: it stands anyway;
    /// `storage_failed`: nothing changed). `what` names the request in the log.
    private func commit(
        _ working: BoardState, _ change: TaskChange, what: String, _ writer: inout Writer
    ) -> HTTPResponse? {
        if change.durability == .immediate {
            do {
                try saveTasks(working.store)
                tasksSaved(&writer)
            } catch  where error.inPlace {
                // tasks.json holds the change already: every reader of the file, and a restart, may find it.
                // Dropping it would leave the board serving one thing while its file says another, so it stands,
                // is served, and is written again (directory sync included) by the lazy write; the agent hears
                // exactly that, not "nothing was changed".
                tasksFailed("\(what): \(error)", &writer)
                writer.board = working
                scheduleLazyWrite(&writer)
                publish(&writer)
                logTransitions(change)
                noteChange(&writer)
                scheduleExpiry(&writer)
                let id = change.snapshot.requestID
                return JSONError(
                    status: 503, code: "storage_unconfirmed",
                    message: "the change to \(id) was made and is served, but the board could not confirm that it "
                        + "is on disk (\(error)); a power loss before the board writes it again (within 1 s) may undo "
                        + "it. Do not repeat the request: read \(id) back to see it"
                )
                .response
            } catch {
                // Not durable, so not committed, not published, not acknowledged.
                tasksFailed("\(what): \(error)", &writer)
                return JSONError(
                    status: 503, code: "storage_failed",
                    message: "the board could not save this change (\(error)); nothing was changed"
                )
                .response
            }
            writer.board = working
            writer.tasksDirty = false
        } else {
            writer.board = working
            scheduleLazyWrite(&writer)
        }
        publish(&writer)
        logTransitions(change)
        noteChange(&writer)
        scheduleExpiry(&writer)
        return nil
    }

    /// The person's answer from the phone, on the writer: recorded in the store like an agent's write (durable
    /// before the answer, then published and announced with a Wake), and logged.
    private func recordAnswer(
        id: String, _ answer: AnswerRequest, for request: HTTPRequest, _ writer: inout Writer
    ) -> HTTPResponse {
        pruneExpired(&writer)
        sweepStale(&writer)
        var working = writer.board
        let outcome: AnswerOutcome
        do {
            outcome = try working.store.answer(id: id, answer, now: runtime.wallNow())
        } catch {
            return PhoneRouter.answerRefusal(error)
        }
        guard outcome.change.changed else {
            writer.board = working  // the record of a repeated press, written with the next change
            return PhoneRouter.answerResponse(outcome)
        }
        let phone = answer.phoneID.isEmpty ? "the phone" : "phone \(answer.phoneID)"
        let what = "answer \(answer.answer.rawValue) to task \(id) from \(request.peerDescription)"
        if let failed = commit(working, outcome.change, what: what, &writer) { return failed }
        let line =
            switch answer.answer {
            case .stop: "task \(id): stop requested from \(phone)"
            case .done, .refuse: "task \(id): answered \(answer.answer.rawValue) from \(phone)"
            case .dismiss: "task \(id): dismissed from \(phone)"
            }
        var fields: [LogField: String] = [.requestID: id, .peer: "\(request.peer)"]
        if let transition = outcome.change.transitions.last?.transition { fields[.transition] = transition.rawValue }
        logger.notice("\(line) (answer_id \(answer.answerID))", fields: fields)
        return PhoneRouter.answerResponse(outcome)
    }

    /// Asks the peripheral for a pairing window (waiting for the executor, so never on a listener's thread); what
    /// became of it is the answer.
    private func openPairingWindow(
        seconds: Int, forgetting phone: String?, unlessBonded phoneBonded: Bool, for request: HTTPRequest, now: Date
    ) -> HTTPResponse {
        switch sink.openPairingWindow(for: .seconds(seconds), forgetting: phone, unlessBonded: phoneBonded) {
        case let .success(outcome):
            switch outcome {
            case let .open(closesIn):
                logger.notice(
                    "Bluetooth pairing window open for \(closesIn) (\(request.peer) asked for \(seconds) s)",
                    fields: [.peer: "\(request.peer)"])
            case let .coolingDown(retryIn):
                logger.notice(
                    "Bluetooth pairing window refused to \(request.peer): cooling down for \(retryIn)",
                    fields: [.peer: "\(request.peer)"])
            case .bondKept:
                logger.notice(
                    "Bluetooth pairing window not opened for \(request.peer): the board still holds its bond",
                    fields: [.peer: "\(request.peer)"])
            }
            return PhoneRouter.pairingAnswer(outcome, now: now)
        case let .failure(error):
            return JSONError(status: 503, code: "unavailable", message: "cannot open a pairing window: \(error)")
                .response
        }
    }

    /// What the phone reported of its app (and the clock it carried): reader-side state, no disk.
    private func recordPhoneAppState(_ state: PhoneAppState) {
        let wall = runtime.wallNow()
        let instant = runtime.monotonicNow()
        let decided = phoneSide.withLock { side in
            side.appState = state
            guard let phoneTime = state.phoneTime else { return nil as BoardClock.Source? }
            return side.clock.learn(phoneTime: phoneTime, wall: wall, instant: instant) ? side.clock.source : nil
        }
        // The first report with the phone's time decides for the run (docs/protocol.md §3.7); later ones move nothing.
        if let decided, let phoneTime = state.phoneTime {
            let off = Int(phoneTime.timeIntervalSince(wall).rounded())
            switch decided {
            case .phone:
                logger.notice(
                    "board clock \(Timestamp.format(wall)) is unset or \(off) s off the phone's: "
                        + "timestamps follow the phone's clock until the board restarts")
            case .board:
                logger.notice("board clock agrees with the phone's (\(off) s): timestamps follow the board's clock")
            }
        }
    }

    // MARK: Lifecycle

    /// Writes pending lazy updates now (shutdown, tests). Returns the error when the write failed.
    @discardableResult
    package func flush() -> BoardStateError? {
        runtime.perform {
            onWriter { writer -> BoardStateError? in
                guard writer.tasksDirty else { return nil }
                do throws(BoardStateError) {
                    try saveTasks(writer.board.store)
                    writer.tasksDirty = false
                    tasksSaved(&writer)
                    return nil
                } catch {
                    logger.error("could not write tasks: \(error)")
                    return error
                }
            }
        }
    }

    /// Whether the board is alive, for the watchdog: no job of the writer has been running for longer
    /// than `stuckAfter`. A slow fsync is not a hang; the readers never depend on the writer anyway.
    package func isResponsive() -> Bool {
        let now = runtime.monotonicNow()
        guard let since = writerBusySince.withLock({ $0 }) else { return true }
        return now - since < settings.stuckAfter
    }

    package var epoch: UInt16 { publication.withLock { $0.board.epoch } }

    package var wakeFacts: WakeFacts { publication.withLock { $0.wakeFacts } }

    /// The live status line (`BoardStatusLine`): active tasks, whether a phone is subscribed, when the last Wake
    /// went out (its time, not its age, so the line needs no timer).
    package func statusLine() -> String {
        let current = publication.withLock { $0 }
        return BoardStatusLine.text(
            activeTasks: current.board.store.activeCount, wake: current.wakeFacts, bluetooth: sink.bluetoothFacts())
    }

    /// Sends the status line to `send` (the daemon's sd_notify `STATUS=`) now and after each change that alters
    /// it, and looks again every `interval` for what the engine is not told of (a phone subscribing over BlueZ),
    /// sending only a changed line: all on the executor.
    package func reportStatus(every interval: Duration = .seconds(60), _ send: @escaping @Sendable (String) -> Void) {
        status.start(every: interval, line: { [weak self] in self?.statusLine() }, send)
    }

    // MARK: The writer

    /// Runs one job of the writer (on the executor), marking it busy for the watchdog meanwhile.
    private func onWriter<Value>(_ job: (inout Writer) -> Value) -> Value {
        writerBusySince.withLock { $0 = runtime.monotonicNow() }
        defer { writerBusySince.withLock { $0 = nil } }
        return writer.withLock { job(&$0) }
    }

    /// Makes the writer's current state what readers see.
    private func publish(_ writer: inout Writer) {
        let (now, instant) = clockNow()
        var replaced = Publication(
            board: writer.board.published(now: now, instant: instant, retention: settings.retention),
            wakeFacts: writer.wakeFacts)
        publication.withLock { swap(&$0, &replaced) }
        // The one it replaced is freed here, past the lock (a store of hundreds of tasks takes a while), unless a
        // phone's request still holds it: readers never wait for it.
        _ = consume replaced
        status.changed()
        answerWaits(&writer)
    }

    /// Publishes new Wake facts, keeping the board already published.
    private func publishWake(_ writer: Writer) {
        publication.withLock { $0 = Publication(board: $0.board, wakeFacts: writer.wakeFacts) }
        status.changed()
    }

    // MARK: Wakes

    /// A change was accepted: feed the coalescer and do what it says.
    private func noteChange(_ writer: inout Writer) {
        let action = writer.coalescer.changed(at: runtime.monotonicNow())
        // Counted here, per change: a timer that fires early (scheduled again) or finds its change sent already
        // (`.none`) is no change of its own.
        if action != .sendWake { writer.wakeFacts.coalescedChanges += 1 }
        perform(action, &writer)
    }

    private func perform(_ action: WakeCoalescer.Action, _ writer: inout Writer) {
        switch action {
        case .sendWake:
            sendWake(&writer)
        case let .scheduleDeadline(deadline):
            runtime.schedule(at: deadline) { [weak self] in self?.deadlineReached() }
        case .none:
            break
        }
        publishWake(writer)
    }

    private func deadlineReached() {
        onWriter { writer in perform(writer.coalescer.deadlineReached(at: runtime.monotonicNow()), &writer) }
    }

    private func sendWake(_ writer: inout Writer) {
        let issue: SequenceReservation.Issue
        do {
            issue = try writer.reservation.next()
        } catch {
            logger.error("wake sequence exhausted in epoch \(writer.wakeState.epoch): \(error)")
            return
        }
        if let mark = issue.mustPersistFirst {
            let state = WakeState(epoch: writer.wakeState.epoch, sequenceHighWater: mark)
            do {
                try directory.saveWake(state)
            } catch {
                // A Wake must never carry a sequence a restart could reuse: skip it, count it. Even a mark in place
                // but not known to be durable is not confirmed: the next Wake writes one again.
                writer.wakeFacts.sendFailures += 1
                log(
                    writer.sequenceMarks.failed("wake \(issue.sequence) not sent: \(error)", at: runtime.monotonicNow())
                )
                return
            }
            log(writer.sequenceMarks.succeeded(at: runtime.monotonicNow()))
            writer.wakeState = state
            writer.reservation.confirmPersisted(highWater: mark)
        }
        let reason = writer.nextReason
        writer.nextReason = .liveActivity
        let envelope = WakeEnvelope(reason: reason, epoch: writer.wakeState.epoch, sequence: issue.sequence)
        writer.wakeFacts.lastSequence = envelope.sequence
        writer.wakeFacts.lastReason = reason.name
        writer.wakeFacts.lastAt = clockNow().now
        // The window runs from here, after the durable mark above (an fsync, now and then), not from the decision.
        writer.coalescer.wentOut(at: runtime.monotonicNow())
        switch sink.send(envelope) {
        case .success:
            writer.wakeFacts.sent += 1
            // Debug: at most one a coalescing window (750 ms) while an agent reports progress, too many for info;
            // the task lines carry what an operator follows, WAKE_SEQ links a phone's received Wake to this one.
            logger.debug("wake \(envelope)", fields: [.wakeSequence: "\(envelope.sequence)"])
            log(writer.deliveries.succeeded(at: runtime.monotonicNow()))
        case let .failure(error):
            writer.wakeFacts.sendFailures += 1
            log(
                writer.deliveries.failed(
                    "wake \(envelope.sequence) not delivered: \(error)", at: runtime.monotonicNow()))
        }
    }

    // MARK: Persistence, retention and staleness timers

    private func scheduleLazyWrite(_ writer: inout Writer) {
        writer.tasksDirty = true
        guard !writer.lazyWriteScheduled else { return }
        writer.lazyWriteScheduled = true
        runtime.schedule(after: settings.lazyWriteDelay) { [weak self] in self?.lazyWriteDue() }
    }

    private func lazyWriteDue() {
        onWriter { writer in
            writer.lazyWriteScheduled = false
            guard writer.tasksDirty else { return }
            do {
                try saveTasks(writer.board.store)
                writer.tasksDirty = false
                tasksSaved(&writer)
            } catch {
                tasksFailed("\(error) (written again in \(settings.lazyWriteDelay))", &writer)
                scheduleLazyWrite(&writer)
            }
        }
    }

    /// Ended tasks leave the phone's card when their retention ends: the store changes, so phones
    /// get a Wake and fetch (and see `not_found`).
    private func pruneExpired(_ writer: inout Writer) {
        let (now, instant) = clockNow()
        guard let due = writer.nextExpiry, due <= instant else { return }
        let removed = writer.board.store.prune(now: now, instant: instant, retention: settings.retention)
        writer.nextExpiry = writer.board.store.nextExpiry(now: now, instant: instant, retention: settings.retention)
        guard !removed.isEmpty else { return }
        logger.info("retention ended for \(removed.joined(separator: ", "))")
        scheduleLazyWrite(&writer)
        publish(&writer)
        noteChange(&writer)
    }

    /// Agents that went silent: their tasks are marked stale, then ended `failed` (a transition, so the
    /// phone alerts). An end must be durable before it is seen, like an agent's: when the write fails
    /// nothing is committed and the sweep runs again at the next timer.
    private func sweepStale(_ writer: inout Writer) {
        let (now, instant) = clockNow()
        guard let due = writer.board.store.nextStaleDeadline(now: now, instant: instant), due <= instant else { return }
        var working = writer.board
        let sweep = working.store.sweepStale(now: now, instant: instant)
        working.store.anchorClocks(now: now, instant: instant)
        guard !sweep.isEmpty else { return }
        if sweep.durability == .immediate {
            do {
                try saveTasks(working.store)
                tasksSaved(&writer)
                writer.board = working
                writer.tasksDirty = false
            } catch  where error.inPlace {
                // The file holds the ends already: they stand, and the lazy write confirms them.
                tasksFailed("ending abandoned tasks: \(error)", &writer)
                writer.board = working
                scheduleLazyWrite(&writer)
            } catch {
                // Not committed; tried again in 5 s. A failure that stays is logged once a minute.
                tasksFailed("ending abandoned tasks: \(error)", &writer)
                writer.staleRetryDue = instant + .seconds(5)
                return
            }
        } else {
            writer.board = working
            scheduleLazyWrite(&writer)
        }
        writer.staleRetryDue = nil
        for change in sweep.stale {
            logger.info(
                "task \(change.snapshot.requestID): no news from its agent for \(change.snapshot.staleAfterSeconds) s, "
                    + "shown as stale",
                fields: [.requestID: change.snapshot.requestID])
        }
        for change in sweep.abandoned {
            logger.notice(
                "task \(change.snapshot.requestID) ended failed: no news from its agent for "
                    + "\(change.snapshot.abandonAfterSeconds) s (\(TaskStore.abandonedError))",
                fields: [.requestID: change.snapshot.requestID, .transition: Transition.failed.rawValue])
        }
        publish(&writer)
        noteChange(&writer)
    }

    private func scheduleExpiry(_ writer: inout Writer) {
        let (now, instant) = clockNow()
        let stale = writer.staleRetryDue ?? writer.board.store.nextStaleDeadline(now: now, instant: instant)
        let ended = writer.board.store.nextExpiry(now: now, instant: instant, retention: settings.retention)
        writer.nextExpiry = ended
        guard let expiry = [stale, ended].compactMap({ $0 }).min() else { return }
        if let scheduled = writer.expiryScheduledFor, scheduled <= expiry { return }
        writer.expiryScheduledFor = expiry
        runtime.schedule(at: max(expiry, instant)) { [weak self] in self?.expiryDue() }
    }

    private func expiryDue() {
        onWriter { writer in
            writer.expiryScheduledFor = nil
            pruneExpired(&writer)
            sweepStale(&writer)
            scheduleExpiry(&writer)
        }
    }

    // MARK: Facts and logs

    /// Writes `store` with every task's age measured now on the monotonic clock (`elapsed` in `tasks.json`), which
    /// is what a restart continues from.
    private func saveTasks(_ store: TaskStore) throws(BoardStateError) {
        var measured = store
        let (now, instant) = clockNow()
        measured.anchorClocks(now: now, instant: instant)
        try directory.saveTasks(measured)
    }

    /// The time to stamp with (`BoardClock`: the board's wall clock, or the phone's) and the monotonic instant
    /// beside it, which every deadline is measured on.
    private func clockNow() -> (now: Date, instant: Duration) {
        let instant = runtime.monotonicNow()
        let wall = runtime.wallNow()
        return (phoneSide.withLock { $0.clock.now(wall: wall, instant: instant) }, instant)
    }

    private func tasksSaved(_ writer: inout Writer) {
        log(writer.tasksWrites.succeeded(at: runtime.monotonicNow()))
    }

    private func tasksFailed(_ detail: String, _ writer: inout Writer) {
        log(writer.tasksWrites.failed(detail, at: runtime.monotonicNow()))
    }

    private func log(_ line: (level: LogLevel, message: String)?) {
        if let line { logger.log(line.level, line.message) }
    }

    private func facts(wake: WakeFacts, path: String) -> BoardFacts {
        let needsUSB = path == "/status" || path == "/v1/status"
        let isPairing = path == "/api/bluetooth/pairing/start"
        return BoardFacts(
            version: settings.version, instanceID: instanceID,
            uptimeSeconds: Int(runtime.monotonicNow().components.seconds),
            liveActivityEnabled: settings.liveActivityEnabled, retention: settings.retention,
            wake: wake, bluetooth: sink.bluetoothFacts(),
            usb: needsUSB ? usbFacts() : USBLinkFacts(link: "unknown"),
            phoneApp: phoneSide.withLock { $0.appState }, boardAddresses: isPairing ? boardAddresses() : [],
            clock: clockFacts())
    }

    private func clockFacts() -> ClockFacts {
        let instant = runtime.monotonicNow()
        let wall = runtime.wallNow()
        return phoneSide.withLock {
            ClockFacts(source: $0.clock.source, offsetSeconds: $0.clock.offsetSeconds(wall: wall, instant: instant))
        }
    }

    private func logDenial(_ denial: AccessPolicy.Denial, request: HTTPRequest) {
        logRefusal("403 \(request.method) \(request.path) from \(request.peer): \(denial)", peer: "\(request.peer)")
    }

    /// Refusals are rate-limited (`RefusalLog`: a peer's first refusal and the repeats have a budget each), so a
    /// flood cannot flood the journal nor hide the next peer refused.
    private func logRefusal(_ line: String, peer: String) {
        let decision = phoneSide.withLock { $0.refusalLog.take(peer: peer, at: runtime.monotonicNow()) }
        guard case let .allowed(suppressed) = decision else { return }
        let more = suppressed > 0 ? " (\(suppressed) more refused since the last report)" : ""
        logger.notice("\(line)\(more)", fields: [.peer: peer])
    }

    /// One info line for each transition an agent's change recorded (a start, a handoff, needs_app, an end), with the
    /// task and the transition as fields: `journalctl -u aiden-board REQUEST_ID=…` finds a task's whole story.
    /// Logged once the change is committed and published, so a line never reports a change that did not happen.
    /// The person's answers are logged by `recordAnswer`, which knows who answered.
    private func logTransitions(_ change: TaskChange) {
        for event in change.transitions {
            guard let line = Self.transitionLine(event.transition, snapshot: change.snapshot) else { continue }
            logger.info(line, fields: [.requestID: event.requestID, .transition: event.transition.rawValue])
        }
    }

    /// `task chat_1 started (phone phone-1)`, `task chat_1 is waiting for the person (handoff)`, …; nil for the
    /// person's answers.
    static func transitionLine(_ transition: Transition, snapshot: TaskSnapshot) -> String? {
        let task = "task \(snapshot.requestID)"
        switch transition {
        case .started:
            return "\(task) started (\(snapshot.phoneID.isEmpty ? "any phone" : "phone \(snapshot.phoneID)"))"
        case .handoff:
            return "\(task) is waiting for the person (handoff)"
        case .foregroundRecovery:
            return "\(task) needs the app in the foreground (needs_app)"
        case .completed, .failed, .canceled:
            let error = snapshot.lastError.isEmpty ? "" : ": \(snapshot.lastError)"
            return "\(task) ended \(snapshot.status.rawValue)\(error)"
        case .stopRequested, .answered, .dismissed:
            return nil
        }
    }
}
