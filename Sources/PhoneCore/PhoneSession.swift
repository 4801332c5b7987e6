import FoundationEssentials
import Logging
import WakeProtocol
import WireFormat

/// The phone client's decisions in one pure value: Wakes, USB presence, board answers, timers and
/// app-state requests go in with the time they happened; effects come out (send this request, arm
/// the timer, show this event, give this alert, save the record). No I/O, no clock: `PhoneClient`
/// performs the effects and feeds results back, and tests drive it with timeline tables.
///
/// It composes the other PhoneCore parts: `WakeFilter` → `FetchScheduler` → a fetch (`/status` when
/// the connection needs naming, then `current`, then `events`, again on `.readAgain`, then the
/// snapshot of each task an alert needs words for) → `Card` and `AlertPolicy`; `USBSessionTracker`
/// for the link.
package struct PhoneSession: Sendable {
    package struct Settings: Sendable, Equatable {
        package var phoneID: String
        package var scheduler: FetchScheduler.Configuration
        /// How many times one fetch rereads the events after `.readAgain` (a board that keeps asking
        /// for a reset is not looped on).
        package var maximumEventRereads: Int
        /// How many task snapshots one fetch reads for its alerts' words; alerts beyond that say what
        /// the card knows (a board whose ring names hundreds of tasks is not read hundreds of times).
        package var maximumTaskReads: Int
        /// The ways back to the task this client offers from the start (the card, when it is drawn on
        /// a terminal); more come with `.returnEntryOffered`.
        package var returnEntries: Set<ReturnEntry>
        /// How many times one answer is sent when no HTTP answer comes back (same `answer_id` each time).
        package var maximumAnswerAttempts: Int

        package init(
            phoneID: String,
            scheduler: FetchScheduler.Configuration = FetchScheduler.Configuration(),
            maximumEventRereads: Int = 3, maximumTaskReads: Int = 16, returnEntries: Set<ReturnEntry> = [],
            maximumAnswerAttempts: Int = 3
        ) {
            self.maximumAnswerAttempts = max(1, maximumAnswerAttempts)
            self.phoneID = phoneID
            self.scheduler = scheduler
            self.maximumEventRereads = maximumEventRereads
            self.maximumTaskReads = maximumTaskReads
            self.returnEntries = returnEntries
        }
    }

    /// What happened.
    package enum Input: Sendable, Equatable {
        /// The client is wired up: report `foreground`, fetch.
        case started
        /// A value from the Wake source: a BLE notification or a loopback datagram (`fullLength` is the
        /// size before any truncation by the receive buffer).
        case wakeValue([UInt8], fullLength: Int)
        /// The Wake source's state changed (`detail`: what stands in the way, in words).
        case wakeLink(LinkState.Wake, detail: String? = nil)
        /// Whether USB presence is watched. `true` comes before the hotplug watcher starts, whose first events
        /// are the boards already plugged in; `false` if it then cannot watch. Until `true` the link is
        /// `unmonitored`, hotplug events are not followed and the connection is named after the board instance
        /// (`board-<instance_id>`).
        case usbWatched(Bool)
        /// A hotplug event for the board's VID:PID.
        case usb(USBEvent)
        /// The transport finished a request.
        case answer(BoardRequest, BoardResponse)
        /// The timer armed by the last `.scheduleDeadline` fired.
        case deadlineReached
        /// Report a new app state (SIGUSR1 / SIGUSR2).
        case appState(AppState)
        /// The client now offers this way back to the task (the desktop notifier found a server):
        /// the app state is reported again if the return entry changes.
        case returnEntryOffered(ReturnEntry)
        /// The person answered (a key on the card, a notification's action): post it to the board.
        /// `answerID` is fresh per press (`Answer.newAnswerID(using:)`); `revision` is the task's revision
        /// on the card the person answered (the board refuses a stale one), nil when the surface did not know it.
        case personAnswered(Answer, requestID: String, answerID: String, revision: UInt64? = nil)
        /// `aiden-phone stop|done|refuse` (the desktop entry's and a lock screen's actions) posted an answer of this
        /// phone's and the board recorded it: fetch, and follow it as one of the session's own.
        case answerRecordedElsewhere
    }

    /// What the shell must do, in order.
    package enum Effect: Sendable, Equatable {
        /// Perform the request and feed the result back as `.answer`.
        case send(BoardRequest)
        /// Arm the single timer (replacing any earlier one) to deliver `.deadlineReached` at this time.
        case scheduleDeadline(at: Duration)
        /// Show an event (`--json` line, or the card on the terminal).
        case emit(PhoneEvent)
        /// Give an alert (terminal, `--json`, desktop notification).
        case alert(Alert)
        /// Persist the alert record now; the alerts that follow it are shown only once it is written, so a
        /// crash between the two cannot repeat them. While
        /// alerts wait for their task's snapshot it holds only the keys of the alerts already given, so
        /// a restart meanwhile gives the waiting ones.
        case saveRecord(AlertRecord)
        /// A log line, with the journal fields that let an operator select it (`WAKE_SEQ` for a Wake).
        case log(LogLevel, String, fields: [LogField: String] = [:])
    }

    /// Running totals, for logs and tests.
    package struct Counters: Sendable, Equatable {
        package var fetchesStarted: UInt64 = 0
        package var fetchesFailed: UInt64 = 0
        /// Wake values that were not 12 bytes (dropped).
        package var malformedWakes: UInt64 = 0
    }

    /// Which read of a fetch is in flight.
    enum FetchStep: Sendable, Equatable {
        case status
        case current
        case events(rereads: Int)
        /// The snapshot of the task the first waiting alert is about.
        case task(requestID: String)
    }

    /// An app state as reported to the board, with the return entry that went with it.
    struct AppStateReport: Sendable, Equatable {
        var state: AppState
        var returnEntry: ReturnEntry?
    }

    enum Reachability: Sendable, Equatable {
        case unknown
        case reachable
        case unreachable
    }

    package let settings: Settings
    package internal(set) var filter = WakeFilter()
    package internal(set) var policy: AlertPolicy
    package internal(set) var link: LinkState
    package internal(set) var counters = Counters()
    var scheduler: FetchScheduler
    var usb = USBSessionTracker()
    var started = false
    /// The last good `current` answer and its ETag (for `If-None-Match`).
    var answer: CurrentAnswer?
    /// The person's answers sent and not answered yet, by `answer_id`.
    var pendingAnswers: [String: PendingAnswer] = [:]
    var etag: String?
    /// Why the last fetch failed; nil after a success.
    var problem: BoardProblem?
    /// The problem last reported as an `error` event, so a retry loop does not repeat it.
    var reportedProblem: BoardProblem?
    var shownCard: Card?
    var reachability = Reachability.unknown
    /// The board answered `404` to the events read: it has no transition ring (an Aiden-profile board), so a
    /// fetch is the `current` read alone. Forgotten when the board becomes unreachable.
    package internal(set) var boardHasNoEvents = false
    /// `board-<instance_id>` once read from `/status`, while the board stays reachable.
    var boardConnectionID: String?
    var fetchStep: FetchStep?
    var wantedAppState: AppState?
    var offeredEntries: Set<ReturnEntry>
    var reportedAppState: AppStateReport?
    var appStateInFlight: AppStateReport?
    /// Task alerts decided but not given yet, in the ring's order: the first one waits for its
    /// task's snapshot, the others wait behind it.
    var waitingAlerts: [Alert] = []
    /// While alerts wait: the record from before they were decided plus the keys of those given
    /// since. It is what gets saved meanwhile, so a restart gives the waiting alerts, and only them.
    var recordWhileWaiting: AlertRecord?
    /// The tasks this fetch read for its alerts (nil: the read gave no snapshot), each read once.
    var taskReads: [String: SnapshotView?] = [:]
    /// Every task seen that may still be on the board: one desktop card each (`taskCards`).
    var seenTasks = SeenTasks()

    package init(settings: Settings, record: AlertRecord = AlertRecord()) {
        self.settings = settings
        self.policy = AlertPolicy(record: record, phoneID: settings.phoneID)
        self.scheduler = FetchScheduler(configuration: settings.scheduler)
        self.link = LinkState(usb: .unmonitored, wake: .connecting)
        self.offeredEntries = settings.returnEntries
    }

    /// When the last well-formed Wake envelope came in (nil: none yet), for the live status.
    package internal(set) var lastWakeAt: Duration?

    /// The board followed, as `board-<instance_id>` (nil: not known, empty: the board names no instance).
    package var boardID: String? { boardConnectionID }

    /// The live status line (`PhoneStatusLine`) at `now`.
    package func statusLine(at now: Duration, wall: Date) -> String {
        PhoneStatusLine.text(board: boardConnectionID, card: shownCard, lastWakeAt: lastWakeAt, now: now, wall: wall)
    }

    /// The card as it was last shown (nil before `.started`).
    package var card: Card? { shownCard }

    /// One card per task this phone has seen and that may still be on the board (`SeenTasks`), first seen
    /// first, for the surfaces that show each task apart (the desktop's notifications); empty before `.started`.
    package var taskCards: [Card] { started ? seenTasks.cards(link: link, problem: problem) : [] }

    /// When the timer should fire next (nil: no timer needed).
    package var nextDeadline: Duration? { scheduler.nextDeadline }

    package var isFetching: Bool { fetchStep != nil }

    package mutating func handle(_ input: Input, at now: Duration) -> [Effect] {
        var effects: [Effect] = []
        switch input {
        case .started:
            start(at: now, &effects)
        case let .wakeValue(bytes, fullLength):
            receiveWake(bytes, fullLength: fullLength, at: now, &effects)
        case let .wakeLink(state, detail):
            wakeLinkChanged(state, detail: detail, at: now, &effects)
        case let .usbWatched(watched):
            usbWatchChanged(watched, &effects)
        case let .usb(event):
            usbEvent(event, at: now, &effects)
        case let .answer(request, response):
            if case let .appState(state, returnEntry, _, _) = request {
                appStateAnswered(AppStateReport(state: state, returnEntry: returnEntry), response, &effects)
            } else if case .answer = request {
                answerAnswered(request, response, at: now, &effects)
            } else {
                answered(request, response, at: now, &effects)
            }
        case .deadlineReached:
            perform(scheduler.handle(.deadlineReached, at: now), &effects)
        case let .appState(state):
            wantedAppState = state
            sendAppStateIfNeeded(&effects)
        case let .returnEntryOffered(entry):
            offeredEntries.insert(entry)
            sendAppStateIfNeeded(&effects)
        case let .personAnswered(answer, requestID, answerID, revision):
            personAnswered(answer, requestID: requestID, answerID: answerID, revision: revision, at: now, &effects)
        case .answerRecordedElsewhere:
            if started { perform(scheduler.handle(.answerRecorded, at: now), &effects) }
        }
        return effects
    }

    private mutating func start(at now: Duration, _ effects: inout [Effect]) {
        guard !started else { return }
        started = true
        effects.append(.emit(.connection(link)))
        showCard(&effects)
        if let id = usb.current?.connectionID { alertConnected(id, &effects) }
        wantedAppState = .foreground
        sendAppStateIfNeeded(&effects)
        perform(scheduler.handle(.started, at: now), &effects)
    }

    private mutating func receiveWake(
        _ bytes: [UInt8], fullLength: Int, at now: Duration,
        _ effects: inout [Effect]
    ) {
        guard fullLength == WakeEnvelope.byteCount, let envelope = try? WakeEnvelope(bytes: bytes) else {
            counters.malformedWakes += 1
            effects.append(
                .emit(
                    .error(
                        kind: "malformed_wake",
                        message: "dropped a \(fullLength)-byte Wake value: a Wake envelope is exactly "
                            + "\(WakeEnvelope.byteCount) bytes (\(counters.malformedWakes) dropped so far)")))
            return
        }
        lastWakeAt = now
        let verdict = filter.receive(epoch: envelope.epoch, sequence: envelope.sequence)
        effects.append(
            .emit(
                .wake(
                    WakeNotice(
                        version: envelope.version, reason: envelope.reason.name, epoch: envelope.epoch,
                        sequence: envelope.sequence, verdict: verdict))))
        effects.append(
            .log(
                .debug,
                "Wake \(envelope.reason.name) epoch=\(envelope.epoch) seq=\(envelope.sequence): "
                    + (verdict.isNew ? "new" : "duplicate"),
                fields: [.wakeSequence: "\(envelope.sequence)"]))
        guard verdict.isNew else { return }
        if case .newEpoch = verdict {
            // The board's sequence space and its events ring were reset (state wiped, another board):
            // forget the cursor that belonged to the old epoch. (ETags carry the epoch: no reset needed.)
            if let known = policy.cursor.epoch, known != envelope.epoch {
                policy.resetCursor()
                recordWhileWaiting?.cursor = EventCursor()
                effects.append(.saveRecord(recordToSave))
                effects.append(
                    .log(
                        .notice,
                        "board epoch changed from \(known) to \(envelope.epoch): "
                            + "reading its events from the start"))
            }
        }
        // Before `.started` the start's own fetch covers it.
        if started { perform(scheduler.handle(.wake, at: now), &effects) }
    }

    /// Does what the scheduler asked.
    mutating func perform(_ action: FetchScheduler.Action, _ effects: inout [Effect]) {
        switch action {
        case .startFetch:
            counters.fetchesStarted += 1
            if needsStatus {
                fetchStep = .status
                effects.append(.send(.status))
            } else {
                sendCurrent(&effects)
            }
        case let .scheduleDeadline(at):
            effects.append(.scheduleDeadline(at: at))
        case .none:
            break
        }
    }

    /// Emits the card when it differs from the one shown.
    mutating func showCard(_ effects: inout [Effect]) {
        guard started else { return }
        let card = Card.derive(link: link, answer: answer, problem: problem)
        guard card != shownCard else { return }
        shownCard = card
        effects.append(.emit(.card(card)))
    }
}
