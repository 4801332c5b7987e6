import PhoneTestSupport
import WakeProtocol
import WireFormat

@testable import PhoneCore

/// Drives a `PhoneSession` on a hand-moved clock against a `FakeBoard`: requests are answered at
/// once (unless `holdRequests`), and every effect is kept for the test to read.
struct SessionDriver {
    var session: PhoneSession
    let board: FakeBoard
    var now: Duration = .zero
    /// Requests are collected in `held` instead of being answered (a fetch in flight).
    var holdRequests = false
    var held: [BoardRequest] = []
    private(set) var effects: [PhoneSession.Effect] = []

    init(
        phoneID: String = "p1", usbWatched: Bool = false, returnEntries: Set<ReturnEntry> = [],
        record: AlertRecord = AlertRecord(), board: FakeBoard = FakeBoard()
    ) {
        session = PhoneSession(settings: .init(phoneID: phoneID, returnEntries: returnEntries), record: record)
        self.board = board
        if usbWatched { send(.usbWatched(true)) }
    }

    mutating func send(_ input: PhoneSession.Input) {
        var queue = [input]
        while !queue.isEmpty {
            let next = queue.removeFirst()
            let produced = session.handle(next, at: now)
            effects += produced
            for case let .send(request) in produced {
                if holdRequests {
                    held.append(request)
                } else {
                    queue.append(.answer(request, board.answer(request)))
                }
            }
        }
    }

    /// Answers the held requests (and whatever they lead to) from the board.
    mutating func release() {
        holdRequests = false
        let pending = held
        held = []
        for request in pending { send(.answer(request, board.answer(request))) }
    }

    /// Answers only the oldest held request; what it leads to is held again (one read at a time).
    mutating func releaseOne() {
        guard !held.isEmpty else { return }
        let request = held.removeFirst()
        send(.answer(request, board.answer(request)))
    }

    mutating func wake(seq: UInt64, epoch: UInt16? = nil) {
        let envelope = WakeEnvelope(reason: .liveActivity, epoch: epoch ?? board.epoch, sequence: seq)
        send(.wakeValue(envelope.bytes, fullLength: 12))
    }

    mutating func advance(to time: Duration) {
        now = time
    }

    /// Moves the clock to the armed deadline and fires it.
    mutating func fireDeadline() {
        guard let deadline = session.nextDeadline else { return }
        now = max(now, deadline)
        send(.deadlineReached)
    }

    mutating func clearEffects() { effects = [] }

    // MARK: Reading the effects

    var events: [PhoneEvent] { effects.compactMap { if case let .emit(event) = $0 { event } else { nil } } }
    var cards: [Card] { events.compactMap { if case let .card(card) = $0 { card } else { nil } } }
    var alerts: [Alert] { effects.compactMap { if case let .alert(alert) = $0 { alert } else { nil } } }
    var alertNames: [String] {
        alerts.map { "\($0.transition.rawValue) \($0.requestID ?? $0.connectionID ?? "-")" }
    }
    var errors: [(kind: String?, message: String)] {
        events.compactMap { if case let .error(kind, message) = $0 { (kind, message) } else { nil } }
    }
    var errorKinds: [String] { errors.map { $0.kind ?? "-" } }
    var savedRecords: [AlertRecord] {
        effects.compactMap { if case let .saveRecord(record) = $0 { record } else { nil } }
    }
    var lastCard: Card? { session.card }
    /// Whether every alert so far came after a save of a record holding its key (the once-only
    /// promise across restarts).
    var everyAlertWasSavedFirst: Bool {
        var saved: AlertRecord?
        for effect in effects {
            switch effect {
            case let .saveRecord(record): saved = record
            case let .alert(alert): if saved?.contains(alert.key) != true { return false }
            default: break
            }
        }
        return true
    }
}
