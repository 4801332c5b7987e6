import FoundationEssentials
import LiveActivity
import Logging
import WakeProtocol

/// The board's decisions in one pure value, the writer's half of the board as `PhoneSession` is the phone's:
/// agent requests, the person's answers, timers and the results of the shell's I/O go in with the time they
/// happened; effects come out (save the tasks, save the Wake mark, publish, send this Wake, arm that timer, answer,
/// log). No I/O, no clock: `BoardEngine` performs the effects in order (arming and disarming timers, which nothing
/// sees before the job ends, after the rest) and feeds each result straight back, and tests drive it with timeline
/// tables.
///
/// A change is made on a copy. One that must be durable (a start, an end, a handoff, the person's answer) is saved
/// first and committed only when the save's result comes back; a progress update is committed at once and written
/// lazily, at most `lazyWriteDelay` later (docs/protocol.md §7.1). When only the directory sync after the rename
/// failed, the file already holds the change, so it stands, is written again lazily, and the agent hears that it is
/// made but not known to be durable (`storage_unconfirmed`). A committed change is published once (with the facts of
/// its Wake when the coalescer sends one at once), and only then does that Wake go out: the Wake follows the
/// publication. A coalesced change's Wake goes out at the window's end, after a publication of the Wake facts.
///
/// Work that must wait for a result (a save, a Wake's delivery) is a queue of `Job`s: each runs until it asks for
/// a result, and the rest wait for it, so an agent's request after a retention prune or a stale sweep sees their
/// changes committed first, as the board would without the shell in between.
package struct BoardSession: Sendable {
    package struct Settings: Sendable {
        package var retention: Duration
        package var coalesceWindow: Duration
        /// How far behind ordinary progress updates may be written (docs/protocol.md §7.1: at most 1 s).
        package var lazyWriteDelay: Duration = .seconds(1)
        package var sequenceBlockSize: UInt64 = SequenceReservation.defaultBlockSize
        /// How long after a failed save of abandoned tasks' ends the sweep runs again.
        package var staleRetryDelay: Duration = .seconds(5)

        package init(retention: Duration, coalesceWindow: Duration) {
            self.retention = retention
            self.coalesceWindow = coalesceWindow
        }
    }

    /// Names a waiting answer: the shell keeps who to answer under it, the session says when and with what.
    package typealias Reply = UInt64

    /// The timers the session arms; arming one again replaces it.
    package enum Timer: Hashable, Sendable {
        /// The lazy write of progress updates.
        case lazyWrite
        /// The next retention end or stale deadline.
        case expiry
        /// The Wake coalescer's deadline.
        case wakeDeadline
        /// A held long-poll's timeout.
        case wait(UInt64)
    }

    /// How a save ended.
    package enum SaveOutcome: Sendable, Equatable {
        case saved
        /// The file was replaced but the directory sync after the rename failed: the change is in the file, not
        /// known to be durable.
        case inPlace(String)
        /// Nothing was written.
        case failed(String)
    }

    /// What happened.
    package enum Input: Sendable {
        /// The board started: announce it with one `system` Wake and arm the retention timer.
        case started
        /// A request on the agent's socket. `facts`: what `/v1/status` reports, read by the shell now; `random`:
        /// 64 fresh random bits, for an id the board generates; `mayHold`: the answer may wait (a long-poll, which
        /// otherwise is answered as if its timeout were 0).
        case agent(HTTPRequest, facts: BoardFacts, random: UInt64, reply: Reply, mayHold: Bool)
        /// The person's answer to a task, which the phone router accepted on the published board.
        case answer(requestID: String, AnswerRequest, from: HTTPRequest, reply: Reply)
        /// A timer armed by `.schedule` fired.
        case timerFired(Timer)
        /// Write pending lazy updates now (shutdown, tests).
        case flush
        /// The result of `.saveTasks`.
        case tasksSaved(SaveOutcome)
        /// The result of `.saveWakeMark`.
        case wakeMarkSaved(SaveOutcome)
        /// The result of `.sendWake`: nil when the transport took it, else why not.
        case wakeDelivered(failure: String?)
    }

    /// What the shell must do, in order (timers may wait until the job's other effects are done: a timer fires only
    /// after the job). The three that name a result are fed back before anything else.
    package enum Effect: Sendable {
        /// Write `tasks.json` (the store with every task's age measured now); feed back `.tasksSaved`.
        case saveTasks(TaskStore)
        /// Write `wake.json`; feed back `.wakeMarkSaved`.
        case saveWakeMark(WakeState)
        /// What readers see from now: the board (nil: the one published already) and the Wake facts.
        case publish(PublishedBoard?, WakeFacts)
        /// Send this Wake; feed back `.wakeDelivered`.
        case sendWake(WakeEnvelope)
        /// Arm `timer` (replacing it if armed) to deliver `.timerFired` at this monotonic time.
        case schedule(Timer, at: Duration)
        /// Disarm `timer`.
        case cancel(Timer)
        /// Answer the request waiting under `reply`.
        case respond(Reply, HTTPResponse)
        /// A log line, with the journal fields that select it.
        case log(LogLevel, String, fields: [LogField: String] = [:])
    }

    /// One long-poll held by the session: what decides it, and where its answer goes.
    struct HeldWait: Sendable {
        let wait: AgentWait
        let reply: Reply
    }

    package let settings: Settings
    /// The board as the writer has it: the published one, or ahead of it while a change waits for its save.
    package internal(set) var board: BoardState
    package internal(set) var wakeState: WakeState
    /// What the Wake side has done, as published with the board.
    package internal(set) var wakeFacts: WakeFacts
    var coalescer: WakeCoalescer
    var reservation: SequenceReservation
    var nextReason: WakeReason = .system
    /// Progress updates committed but not yet written.
    package internal(set) var tasksDirty = false
    var lazyWriteScheduled = false
    /// Monotonic instants, like every deadline (retention and staleness follow elapsed time).
    var expiryScheduledFor: Duration?
    /// When the next ended task leaves (nil: none ended), so jobs only prune when one is due.
    var nextExpiry: Duration?
    /// When to try again to save the end of abandoned tasks after the write failed (nil: not failing).
    var staleRetryDue: Duration?
    /// Failures that repeat for as long as their cause lasts (a full disk, no registration with bluetoothd):
    /// logged when they start, summarised at most once a minute, and when they end.
    var tasksWrites = RepeatedFailureLog("writing tasks.json")
    var sequenceMarks = RepeatedFailureLog("persisting the Wake sequence mark")
    var deliveries = RepeatedFailureLog("delivering Wakes", level: .warning)
    /// The agents' long-polls, held until a change the session publishes decides them or their timeout passes.
    var waits: [UInt64: HeldWait] = [:]
    var nextWaitID: UInt64 = 0
    let agentRouter = AgentRouter()

    /// Work not yet done, in order; `awaiting` holds it up until its result comes in.
    var jobs: [Job] = []
    var awaiting: Awaiting?
    /// What the input being handled produced so far, and its time.
    var effects: [Effect] = []
    var now: Date
    var instant: Duration

    /// `store` and `wake` as loaded; every task's age continues from what `tasks.json` recorded (the monotonic clock
    /// started again).
    package init(
        settings: Settings, store: TaskStore, wake: WakeState, instanceID: String, transport: String, now: Date,
        at instant: Duration
    ) {
        self.settings = settings
        var board = BoardState(store: store, epoch: wake.epoch, instanceID: instanceID)
        board.store.anchorClocks(now: now, instant: instant)
        self.board = board
        wakeState = wake
        wakeFacts = WakeFacts(transport: transport)
        coalescer = WakeCoalescer(window: settings.coalesceWindow)
        reservation = SequenceReservation(
            persistedHighWater: wake.sequenceHighWater, blockSize: settings.sequenceBlockSize)
        self.now = now
        self.instant = instant
    }

    /// The board as readers first see it, before any input.
    package mutating func published(now: Date, at instant: Duration) -> PublishedBoard {
        board.published(now: now, instant: instant, retention: settings.retention)
    }

    /// How many long-polls the session holds now.
    package var heldWaits: Int { waits.count }

    /// Whether a result is awaited (the shell feeds it back before anything else).
    package var isAwaitingResult: Bool { awaiting != nil }

    /// Handles `input` at (`now`, `instant`): `now` is the time to stamp with (`BoardClock`), `instant` the
    /// monotonic time every deadline is measured on.
    package mutating func handle(_ input: Input, now: Date, at instant: Duration) -> [Effect] {
        self.now = now
        self.instant = instant
        switch input {
        case let .tasksSaved(outcome):
            guard case let .tasks(purpose)? = awaiting else { return unexpected("tasks.json saved") }
            awaiting = nil
            tasksSaved(outcome, for: purpose)
        case let .wakeMarkSaved(outcome):
            guard case let .wakeMark(state, sequence, boardChanged)? = awaiting else {
                return unexpected("Wake mark saved")
            }
            awaiting = nil
            wakeMarkSaved(outcome, state, sequence: sequence, boardChanged: boardChanged)
        case let .wakeDelivered(failure):
            guard case let .delivery(envelope)? = awaiting else { return unexpected("Wake delivered") }
            awaiting = nil
            wakeDelivered(envelope, failure: failure)
        case .started:
            jobs.append(contentsOf: [.announce, .scheduleExpiry])
        case let .agent(request, facts, random, reply, mayHold):
            let call = AgentCall(request: request, facts: facts, random: random, reply: reply, mayHold: mayHold)
            jobs.append(contentsOf: [.prune, .sweep, .route(call)])
        case let .answer(requestID, answer, request, reply):
            jobs.append(contentsOf: [.prune, .sweep, .record(AnswerCall(id: requestID, answer, request, reply))])
        case .timerFired(.lazyWrite):
            jobs.append(.lazyWrite)
        case .timerFired(.expiry):
            jobs.append(.expiry)
        case .timerFired(.wakeDeadline):
            jobs.append(.wakeDeadline)
        case let .timerFired(.wait(id)):
            jobs.append(.waitTimedOut(id))
        case .flush:
            jobs.append(.flush)
        }
        while awaiting == nil, !jobs.isEmpty {
            run(jobs.removeFirst())
        }
        defer { effects = [] }
        return effects
    }

    /// A result nothing waits for: the shell broke its promise to feed each back at once. Logged, not acted on.
    private mutating func unexpected(_ what: String) -> [Effect] {
        [.log(.error, "board: \(what), but nothing waited for it (ignored)")]
    }

    // MARK: Jobs

    /// An agent's request, as the session routes it after the timers' due work.
    struct AgentCall: Sendable {
        let request: HTTPRequest
        let facts: BoardFacts
        let random: UInt64
        let reply: Reply
        let mayHold: Bool
    }

    /// The person's answer, as the session records it after the timers' due work.
    struct AnswerCall: Sendable {
        let id: String
        let answer: AnswerRequest
        let request: HTTPRequest
        let reply: Reply

        init(id: String, _ answer: AnswerRequest, _ request: HTTPRequest, _ reply: Reply) {
            self.id = id
            self.answer = answer
            self.request = request
            self.reply = reply
        }
    }

    enum Job: Sendable {
        case prune
        case sweep
        case route(AgentCall)
        case record(AnswerCall)
        case expiry
        case scheduleExpiry
        case lazyWrite
        case flush
        case wakeDeadline
        case waitTimedOut(UInt64)
        /// A change was committed: publish it and tell the coalescer.
        case announce
        /// Effects that follow a change once it is published and announced (its log lines, its answer).
        case emit([Effect])
    }

    /// The result a job asked for, and what it was for.
    enum Awaiting: Sendable {
        case tasks(SavePurpose)
        case wakeMark(WakeState, sequence: UInt64, boardChanged: Bool)
        case delivery(WakeEnvelope)
    }

    /// Why `tasks.json` is being written.
    enum SavePurpose: Sendable {
        case change(Commit)
        case sweep(BoardState, TaskStore.StaleSweep)
        case lazy
        case flush
    }

    /// A change that must be durable, waiting for its save: the board with it, and what follows it.
    struct Commit: Sendable {
        let working: BoardState
        let change: TaskChange
        /// Names the request in the log.
        let what: String
        let reply: Reply
        /// What follows once it is committed, published and announced.
        let then: [Effect]
    }

    private mutating func run(_ job: Job) {
        switch job {
        case .prune: pruneExpired()
        case .sweep: sweepStale()
        case let .route(call): route(call)
        case let .record(call): record(call)
        case .expiry:
            expiryScheduledFor = nil
            jobs.insert(contentsOf: [.prune, .sweep, .scheduleExpiry], at: 0)
        case .scheduleExpiry: scheduleExpiry()
        case .lazyWrite:
            lazyWriteScheduled = false
            if tasksDirty { save(board.store, for: .lazy) }
        case .flush:
            if tasksDirty { save(board.store, for: .flush) }
        case .wakeDeadline: perform(coalescer.deadlineReached(at: instant), boardChanged: false)
        case let .waitTimedOut(id):
            guard let held = waits.removeValue(forKey: id) else { return }
            effects.append(.respond(held.reply, held.wait.timedOut(on: &board)))
        case .announce: announce()
        case let .emit(effects): self.effects += effects
        }
    }

    /// Asks the shell to write `store` with every task's age measured now (`elapsed` in `tasks.json`, what a
    /// restart continues from), and waits for the result.
    mutating func save(_ store: TaskStore, for purpose: SavePurpose) {
        var measured = store
        measured.anchorClocks(now: now, instant: instant)
        effects.append(.saveTasks(measured))
        awaiting = .tasks(purpose)
    }

    /// Logs a `RepeatedFailureLog` line, if it gave one.
    mutating func log(_ line: (level: LogLevel, message: String)?) {
        if let line { effects.append(.log(line.level, line.message)) }
    }
}
