import FoundationEssentials
import LiveActivity
import Logging
import WakeProtocol

@testable import BoardAPI

/// Drives a `BoardSession` on a hand-moved clock, as `BoardEngine` does: every save and Wake is answered at once
/// with what the test set (`tasksSave`, `markSave`, `delivery`), timers fire when the clock passes them, and every
/// effect is kept as one line of `trace` for timeline tables.
struct BoardSessionDriver {
    var session: BoardSession
    /// Milliseconds since the start, on both clocks (the wall clock starts at `wallStart`).
    private(set) var ms: Int64 = 0
    static let wallStart = Date(timeIntervalSince1970: 1_780_000_000)
    var tasksSave: BoardSession.SaveOutcome = .saved
    var markSave: BoardSession.SaveOutcome = .saved
    /// Why the transport refuses the next Wakes (nil: it takes them).
    var delivery: String?
    private(set) var trace: [String] = []
    private(set) var responses: [BoardSession.Reply: HTTPResponse] = [:]
    private(set) var published: [(board: PublishedBoard?, wake: WakeFacts)] = []
    private(set) var savedStores: [TaskStore] = []
    private(set) var sentWakes: [WakeEnvelope] = []
    private(set) var timers: [BoardSession.Timer: Duration] = [:]
    private var nextReply: BoardSession.Reply = 0
    private var random: UInt64 = 0
    let facts = BoardFacts(
        version: "0.1.0", instanceID: "i-1", uptimeSeconds: 12, liveActivityEnabled: true, retention: .seconds(600),
        wake: WakeFacts(transport: "loopback"), bluetooth: BluetoothFacts(adapter: "hci0"),
        usb: USBLinkFacts(link: "unknown"))

    init(highWater: UInt64 = 0, blockSize: UInt64 = 1024, retention: Duration = .seconds(600)) {
        var settings = BoardSession.Settings(retention: retention, coalesceWindow: .milliseconds(750))
        settings.sequenceBlockSize = blockSize
        session = BoardSession(
            settings: settings, store: TaskStore(generation: "g1"),
            wake: WakeState(epoch: 4660, sequenceHighWater: highWater), instanceID: "1f2e3d4c5b6a7988",
            transport: "loopback", now: Self.wallStart, at: .zero)
    }

    var instant: Duration { .milliseconds(ms) }
    var now: Date { Self.wallStart.addingTimeInterval(Double(ms) / 1000) }

    /// Hands `input` to the session and does what the shell does with each effect, feeding results straight back.
    mutating func send(_ input: BoardSession.Input) {
        var next: BoardSession.Input? = input
        while let current = next {
            next = nil
            for effect in session.handle(current, now: now, at: instant) {
                switch effect {
                case let .saveTasks(store):
                    savedStores.append(store)
                    trace.append("save tasks")
                    next = .tasksSaved(tasksSave)
                case let .saveWakeMark(state):
                    trace.append("save mark \(state.sequenceHighWater)")
                    next = .wakeMarkSaved(markSave)
                case let .publish(board, wake):
                    published.append((board, wake))
                    trace.append(board == nil ? "publish facts" : "publish board")
                case let .sendWake(envelope):
                    sentWakes.append(envelope)
                    trace.append("wake \(envelope.reason.name) \(envelope.sequence)")
                    next = .wakeDelivered(failure: delivery)
                case let .schedule(timer, at):
                    timers[timer] = at
                    trace.append("arm \(timer) at \(at.milliseconds) ms")
                case let .cancel(timer):
                    timers[timer] = nil
                    trace.append("cancel \(timer)")
                case let .respond(reply, response):
                    responses[reply] = response
                    trace.append("respond \(reply): \(response.status)")
                case let .log(level, message, _):
                    trace.append("log \(level): \(message)")
                }
            }
        }
    }

    /// An agent's request; returns the reply it is answered under.
    @discardableResult
    mutating func agent(
        _ method: String, _ target: String, body: String = "", headers: [String: String] = [:], mayHold: Bool = false
    ) -> BoardSession.Reply {
        let reply = nextReply
        nextReply += 1
        random += 1
        let request = RouterFixture.request(method, target, headers: headers, body: body)
        send(.agent(request, facts: facts, random: random, reply: reply, mayHold: mayHold))
        return reply
    }

    /// Starts a task (`request_id` as given) and returns the reply.
    @discardableResult
    mutating func start(_ id: String, extra: String = "") -> BoardSession.Reply {
        agent("POST", "/v1/tasks", body: #"{"task_title":"T","request_id":"\#(id)"\#(extra)}"#)
    }

    /// Moves both clocks to `ms`, firing each armed timer that falls due on the way, in deadline order (unless
    /// `firing` is false: a timer still queued behind other work when the next input comes).
    mutating func advance(to target: Int64, firing: Bool = true) {
        while firing, let (timer, at) = timers.min(by: { $0.value < $1.value }), at <= .milliseconds(target) {
            timers[timer] = nil
            ms = max(ms, at.milliseconds)
            send(.timerFired(timer))
        }
        ms = target
    }

    mutating func clearTrace() { trace = [] }

    var lastWakeFacts: WakeFacts? { published.last?.wake }
}

extension Duration {
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
