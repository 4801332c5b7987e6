import BoardAPI
import FoundationEssentials
import LiveActivity
import Logging
import NetworkAddress
import Platform
import ServiceManager
import Synchronization
import WakeProtocol
import WireFormat

/// The board's shell: `BoardSession` (pure) decides, this performs its effects and serves the readers.
///
/// The session runs on the runtime's serial executor, one input at a time: agent requests, the person's answers,
/// timers. Its effects are done in order there (a save, a publication, a Wake, an answer, a log line; timers and the
/// status line once the job's last effect is done, `drive`), and the result of each save and Wake is fed straight
/// back, so the session decides what a failure means.
///
/// The phone's requests (on the ECM listeners' server loop threads) read the last publication, an immutable value
/// with every answer body encoded, and never wait for the writer or the disk. The two that ask something of the
/// board, a pairing window and the person's answer to a task (a store change like an agent's write, durable before
/// it is acknowledged), are answered later (`HTTPReply.later`): their connection waits for the executor, the
/// listener's thread does not, so a phone's reads on its other connections are served while the writer is in a
/// slow fsync.
package final class BoardEngine: Sendable {
    /// The session's own settings, and what only the shell needs.
    package struct Settings: Sendable {
        package var version: String
        package var liveActivityEnabled: Bool
        /// Retention, the coalescing window, the lazy write's delay, the sequence block: the writer's decisions.
        package var session: BoardSession.Settings
        /// How long one job of the writer may run before the watchdog calls the board wedged.
        package var stuckAfter: Duration = .seconds(20)

        package init(version: String, liveActivityEnabled: Bool, retention: Duration, coalesceWindow: Duration) {
            self.version = version
            self.liveActivityEnabled = liveActivityEnabled
            self.session = BoardSession.Settings(retention: retention, coalesceWindow: coalesceWindow)
        }
    }

    /// What only the executor touches: the session, and what the shell keeps for its effects (held without a
    /// lock, `ExecutorConfined`).
    private struct Writer {
        var session: BoardSession
        var timers: [BoardSession.Timer: any ScheduledWork] = [:]
        var replies: [BoardSession.Reply: @Sendable (HTTPResponse) -> Void] = [:]
        var nextReply: BoardSession.Reply = 0
        var random = SystemRandomNumberGenerator()
        /// The last failed write of `tasks.json` (what `flush()` returns).
        var lastSaveError: BoardStateError?
        /// `tasks.json`'s pieces from the last write, so the next encodes only what changed.
        var storeEncoder = TaskStoreEncoder()

        /// Keeps `respond` for the session's answer to a request.
        mutating func register(_ respond: @escaping @Sendable (HTTPResponse) -> Void) -> BoardSession.Reply {
            defer { nextReply += 1 }
            replies[nextReply] = respond
            return nextReply
        }
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
        /// Which clock stamps (the phone's reports may move it); read by the writer for every input.
        var clock = BoardClock()
        var refusalLog = RefusalLog()
    }

    private let writer: ExecutorConfined<Writer>
    private let publication: Mutex<Publication>
    private let phoneSide = Mutex(PhoneSide())
    /// The live status line (`reportStatus`).
    private let status: StatusReporter
    /// When the writer's current job began (nil: idle), for the watchdog.
    private let writerBusySince = Mutex<Duration?>(nil)
    private let settings: Settings
    private let phoneRouter: PhoneRouter
    private let directory: BoardStateDirectory
    private let sink: any WakeSink
    private let runtime: any Runtime
    private let logger: Logger
    private let usbFacts: @Sendable () -> USBLinkFacts
    private let boardAddresses: @Sendable () -> [IPAddress]?
    private let instanceID: String
    /// Where a pairing request waits for the executor (the peripheral's lifecycle runs there), off the listener's
    /// thread. Serial: one phone, and a window at a time.
    private let pairingLane = Lane("aiden.board.pairing")

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
            policy: policy, liveActivityEnabled: settings.liveActivityEnabled, retention: settings.session.retention)
        self.directory = directory
        self.sink = sink
        self.runtime = runtime
        self.logger = logger
        self.usbFacts = usbFacts
        status = StatusReporter(runtime: runtime)
        var random = SystemRandomNumberGenerator()
        instanceID = String(random.next(), radix: 16)
        let (now, instant) = (runtime.wallNow(), runtime.monotonicNow())
        var session = BoardSession(
            settings: settings.session, store: loaded.store, wake: loaded.wake, instanceID: instanceID,
            transport: sink.transportName, now: now, at: instant)
        publication = Mutex(
            Publication(board: session.published(now: now, at: instant), wakeFacts: session.wakeFacts))
        writer = ExecutorConfined(Writer(session: session), on: runtime)
    }

    /// Announces the (re)started board with one `system` Wake and arms the retention timer.
    package func start() {
        runtime.perform { onWriter { writer in drive(.started, &writer) } }
    }

    // MARK: Requests

    /// A request on an ECM (or loopback) listener: answered from the last publication, on the
    /// calling thread, without waiting for the writer. The exceptions are answered later, never holding the
    /// calling thread: a pairing request from the phone, which waits (on a lane of its own) for the executor,
    /// where the peripheral decides when the window closes, and the person's answer to a task the router
    /// accepted on the published board, which the session records (and makes durable) first.
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
                pairingLane.run { [self] in
                    respond(
                        openPairingWindow(
                            seconds: seconds, forgetting: phone, unlessBonded: phoneBonded, for: request, now: now))
                }
            }
        case let .recordAnswer(id, answer):
            return .later { [self] respond in
                runtime.enqueue { [self] in
                    onWriter { writer in
                        let reply = writer.register(respond)
                        drive(.answer(requestID: id, answer, from: request, reply: reply), &writer)
                    }
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

    /// A request on the agent's Unix socket: handed to the session, answered when it is done (and, for a change that
    /// must be durable, when it is on disk). A long-poll is answered as if its timeout were 0: the shell sends those
    /// to `handleAgent(_:respond:)`.
    package func handleAgent(_ request: HTTPRequest) -> HTTPResponse {
        let answer = Answer()
        runtime.perform { agent(request, mayHold: false) { response in answer.response.withLock { $0 = response } } }
        return answer.response.withLock { $0 }
            ?? JSONError(status: 500, code: "internal", message: "the board decided nothing for this request").response
    }

    /// Where the synchronous `handleAgent(_:)` finds its answer: the session answers it before `perform` returns.
    private final class Answer: Sendable {
        let response = Mutex<HTTPResponse?>(nil)
    }

    /// A request on the agent's Unix socket that may be a long-poll (`AgentRouter.mayWait`), answered through
    /// `respond` without the caller waiting: at once when the board decides it already, else when a change the
    /// session publishes decides it (docs/protocol.md §6.6) or its timeout passes. Holding it costs the writer
    /// nothing between changes.
    package func handleAgent(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        runtime.enqueue { [self] in agent(request, mayHold: true, respond) }
    }

    /// On the executor: the agent's request into the session, with the facts `/v1/status` reports.
    private func agent(
        _ request: HTTPRequest, mayHold: Bool, _ respond: @escaping @Sendable (HTTPResponse) -> Void
    ) {
        onWriter { writer in
            let reply = writer.register(respond)
            let facts = facts(wake: writer.session.wakeFacts, path: request.path)
            let random = writer.random.next()
            drive(.agent(request, facts: facts, random: random, reply: reply, mayHold: mayHold), &writer)
        }
    }

    /// How many long-polls the session holds now (tests, the bench).
    package var heldWaits: Int { runtime.perform { onWriter { $0.session.heldWaits } } }

    /// Asks the peripheral for a pairing window (waiting for the executor, so never on a listener's thread); what
    /// became of it is the answer.
    private func openPairingWindow(
        seconds: Int, forgetting phone: String?, unlessBonded phoneBonded: Bool, for request: HTTPRequest, now: Date
    ) -> HTTPResponse {
        let outcome = sink.openPairingWindow(for: .seconds(seconds), forgetting: phone, unlessBonded: phoneBonded)
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
        case let .failed(why):
            logger.notice(
                "Bluetooth pairing window not opened for \(request.peer): \(why)", fields: [.peer: "\(request.peer)"])
        }
        return PhoneRouter.pairingAnswer(outcome, now: now)
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
                writer.lastSaveError = nil
                drive(.flush, &writer)
                return writer.lastSaveError
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
    /// it, sending only a changed line: all on the executor. The transport tells of its own changes (a phone
    /// subscribing over BlueZ, bluetoothd going away: `WakeSink.observeFacts`), so nothing looks on a timer.
    package func reportStatus(_ send: @escaping @Sendable (String) -> Void) {
        sink.observeFacts { [weak self] in self?.runtime.enqueue { [weak self] in self?.status.changed() } }
        status.start(line: { [weak self] in self?.statusLine() }, send)
    }

    // MARK: The writer

    /// Runs one job of the writer (on the executor), marking it busy for the watchdog meanwhile.
    private func onWriter<Value>(_ job: (inout Writer) -> Value) -> Value {
        writerBusySince.withLock { $0 = runtime.monotonicNow() }
        defer { writerBusySince.withLock { $0 = nil } }
        return writer.withValue { job(&$0) }
    }

    /// Hands `input` to the session and performs its effects in order, feeding the result of each save and Wake
    /// straight back (the session waits for it before anything else).
    ///
    /// Two kinds wait until the session has nothing more to say for this job, in their own order: arming and
    /// disarming timers, and the status line. Nothing can see them sooner (a timer fires on this executor, after
    /// the job), and both cost a wake-up of another thread (Dispatch's timer thread; systemd's notify socket, a
    /// socket made for each line), which on a board's two cores could take the CPU from the Wake behind them.
    private func drive(_ input: BoardSession.Input, _ writer: inout Writer) {
        var timerChanges: [(timer: BoardSession.Timer, deadline: Duration?)] = []
        var published = false
        defer {
            for change in timerChanges {
                writer.timers.removeValue(forKey: change.timer)?.cancel()
                if let deadline = change.deadline {
                    let timer = change.timer
                    writer.timers[timer] = runtime.schedule(at: deadline) { [weak self] in self?.fired(timer) }
                }
            }
            if published { status.changed() }
        }
        var next: BoardSession.Input? = input
        while let current = next {
            next = nil
            let (now, instant) = clockNow()
            for effect in writer.session.handle(current, now: now, at: instant) {
                switch effect {
                case let .saveTasks(store):
                    do throws(BoardStateError) {
                        try directory.saveTasks(store, encoder: &writer.storeEncoder)
                        next = .tasksSaved(.saved)
                    } catch {
                        writer.lastSaveError = error
                        next = .tasksSaved(error.outcome)
                    }
                case let .saveWakeMark(state):
                    do throws(BoardStateError) {
                        try directory.saveWake(state)
                        next = .wakeMarkSaved(.saved)
                    } catch {
                        next = .wakeMarkSaved(error.outcome)
                    }
                case let .sendWake(envelope):
                    switch sink.send(envelope) {
                    case .success: next = .wakeDelivered(failure: nil)
                    case let .failure(error): next = .wakeDelivered(failure: "\(error)")
                    }
                case let .publish(board, wakeFacts):
                    var replaced = Publication(
                        board: board ?? publication.withLock { $0.board }, wakeFacts: wakeFacts)
                    publication.withLock { current in
                        // What the servers send again from the last board stops before the next is seen
                        // (`AnswerValidity`), so no repeat is answered from the old one beside reads of the new.
                        if let board, board !== current.board { current.board.validity.end() }
                        swap(&current, &replaced)
                    }
                    // The one it replaced is freed here, past the lock (a store of hundreds of tasks takes a while),
                    // unless a phone's request still holds it: readers never wait for it.
                    _ = consume replaced
                    published = true
                case let .schedule(timer, deadline):
                    timerChanges.append((timer, deadline))
                case let .cancel(timer):
                    timerChanges.append((timer, nil))
                case let .respond(reply, response):
                    writer.replies.removeValue(forKey: reply)?(response)
                case let .log(level, message, fields):
                    logger.log(level, message, fields: fields)
                }
            }
        }
    }

    private func fired(_ timer: BoardSession.Timer) {
        onWriter { writer in
            writer.timers[timer] = nil
            drive(.timerFired(timer), &writer)
        }
    }

    // MARK: Facts and logs

    /// The time to stamp with (`BoardClock`: the board's wall clock, or the phone's) and the monotonic instant
    /// beside it, which every deadline is measured on.
    private func clockNow() -> (now: Date, instant: Duration) {
        let instant = runtime.monotonicNow()
        let wall = runtime.wallNow()
        return (phoneSide.withLock { $0.clock.now(wall: wall, instant: instant) }, instant)
    }

    private func facts(wake: WakeFacts, path: String) -> BoardFacts {
        let needsUSB = path == "/status" || path == "/v1/status"
        let isPairing = path == "/api/bluetooth/pairing/start"
        return BoardFacts(
            version: settings.version, instanceID: instanceID,
            uptimeSeconds: Int(runtime.monotonicNow().components.seconds),
            liveActivityEnabled: settings.liveActivityEnabled, retention: settings.session.retention,
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
}

extension BoardStateError {
    /// What the session makes of it: in place (the file holds the change, not known to be durable) or not written.
    fileprivate var outcome: BoardSession.SaveOutcome { inPlace ? .inPlace("\(self)") : .failed("\(self)") }
}
