import FoundationEssentials
import PhoneCore
import WakeProtocol
import WireFormat

/// The phone's reading of whatever answers on the board's address: each part of the input is a `200` body,
/// read as `/api/live-activity/current`, `/status` and `/api/live-activity/events` answers, and then given,
/// in order, to a running phone session as the answers to the reads it makes (after a Wake, a fetch: status,
/// current, events, task snapshots). Parts are separated by `---` lines; when they run out, the board is gone.
///
/// Beyond not crashing: every card the session shows renders, at the narrowest width and a usual one, in lines
/// that fit the width and hold no control character; every event it emits is one line of valid JSON
/// (`--json`); a snapshot answer names a task.
package enum PhoneAnswersHarness: FuzzHarness {
    package static let name = "phone-answers"
    static let widths = [CardTextRenderer.Options.minimumWidth, 60]
    static let wakes = [1, 2, 3].map { WakeEnvelope(reason: .liveActivity, epoch: 7, sequence: $0).bytes }

    package static func run(_ input: [UInt8]) throws(InvariantViolation) -> FuzzVerdict {
        let records = FuzzRecords.split(input)
        let bodies = records.map(Array.init)
        var verdict = FuzzVerdict.accepted
        var checked = Checked()
        for body in bodies {
            let readable = try bodyReadings.verdict(for: body) { () throws(InvariantViolation) in
                let current = try? BoardAnswer.current(from: body)
                let events = try? BoardAnswer.events(from: body)
                if case let .snapshot(view, _)? = current {
                    try require(view.requestID?.isEmpty == false, "a snapshot answer without a request id")
                    try checkCard(Card(state: CardState(snapshot: view), snapshot: view, link: link), &checked)
                }
                return current != nil || events != nil || BoardStatusAnswer(body: body) != .unreadable
            }
            if !readable { verdict = .rejected }
        }
        try runSession(answers: bodies, from: records, of: input, &checked)
        return verdict
    }

    /// The cards and events one input has checked already. Rendering a card (`lines(for:)` without a wall
    /// clock) and encoding an event (at the harness's fixed date) are pure, so an equal one gives the same lines
    /// and passes or fails as the first did: the session shows the same card after many of its reads, and the
    /// snapshot bodies read above come back as its cards. Kept for one input only, so that every allocation of
    /// an input is freed by its end (libFuzzer runs an input again and scans for leaks when it is not).
    struct Checked {
        var cards: [Card] = []
        var events: [PhoneEvent] = []
    }

    static let link = LinkState(usb: .unmonitored, wake: .connected)

    /// Whether a body reads as any answer, after its snapshot's card passed: both depend on its bytes alone.
    static let bodyReadings = VerdictCache<Bool>(slots: 1024, bytesEach: 4096)

    /// A session that starts, gets Wakes, and reads its answers from `answers` (`records` of `input`) in order.
    private static func runSession(
        answers: [[UInt8]], from records: [ArraySlice<UInt8>], of input: [UInt8], _ checked: inout Checked
    ) throws(InvariantViolation) {
        var session = PhoneSession(settings: PhoneSession.Settings(phoneID: "p1"))
        var read = 0
        var refused = 0
        var inputs: [PhoneSession.Input] =
            [.started, .wakeLink(.connected)] + wakes.map { .wakeValue($0, fullLength: 12) }
        var now = Duration.zero
        var steps = 0
        while !inputs.isEmpty, steps < 200 {
            steps += 1
            now += .milliseconds(10)
            // What the session has been through up to this step: the answers it was given so far.
            let (readBefore, refusedBefore) = (read, refused)
            let next = inputs.removeFirst()
            var shown: [PhoneEvent] = []
            for effect in session.handle(next, at: now) {
                switch effect {
                case let .send(request):
                    let response: BoardResponse
                    if read < answers.count {
                        response = .answered(status: 200, etag: nil, body: answers[read])
                        read += 1
                    } else {
                        response = .failed(detail: "connection refused")
                        refused += 1
                    }
                    inputs.append(.answer(request, response))
                case .emit(.wake):
                    break  // nothing the board wrote
                case let .emit(event):
                    shown.append(event)
                case let .alert(alert):
                    shown.append(.alert(alert))
                case .scheduleDeadline, .saveRecord, .log:
                    break
                }
            }
            guard !shown.isEmpty else { continue }
            // The session, and so what it shows at this step, depends on the step and the answers it read before
            // (the input's bytes up to the last one's end, and whether a separator follows it) and refused
            // alone: what it showed at the same step after the same answers was checked already.
            let tag: UInt8 = readBefore == 0 ? 2 : readBefore == records.count ? 1 : 0
            let counts = [steps, readBefore, refusedBefore].flatMap { count in
                (0..<4).map { UInt8(truncatingIfNeeded: count >> ($0 * 8)) }
            }
            let history = counts + [tag] + input[..<(readBefore == 0 ? 0 : records[readBefore - 1].endIndex)]
            try shownSteps.verdict(for: history) { () throws(InvariantViolation) in
                for event in shown {
                    try checkLine(event, &checked)
                    if case let .card(card) = event { try checkCard(card, &checked) }
                }
                return true
            }
        }
    }

    /// Whether what the session showed at a step of a history passed the checks, by history.
    static let shownSteps = VerdictCache<Bool>(slots: 8192, bytesEach: 4109)

    private static func checkLine(_ event: PhoneEvent, _ checked: inout Checked) throws(InvariantViolation) {
        guard !checked.events.contains(event) else { return }
        checked.events.append(event)
        let line = PhoneEventEncoder().line(for: event, at: Date(timeIntervalSince1970: 1_780_000_000))
        // Whether a line is one line holding a JSON object depends on its bytes alone.
        try lines.verdict(for: Array(line.utf8)) { () throws(InvariantViolation) in
            try require(!line.utf8.contains(UInt8(ascii: "\n")), "a --json line holds a line feed: \(line)")
            guard (try? JSONDecoder().decode(JSONObjectProbe.self, from: Data(line.utf8))) != nil else {
                throw InvariantViolation("a --json line is not a JSON object: \(line)")
            }
            return true
        }
    }

    static let lines = VerdictCache<Bool>(slots: 1024, bytesEach: 4096)

    private static func checkCard(_ card: Card, _ checked: inout Checked) throws(InvariantViolation) {
        guard !checked.cards.contains(card) else { return }
        checked.cards.append(card)
        for width in widths {
            for line in CardTextRenderer(options: .init(width: width, color: false)).lines(for: card) {
                try require(
                    TerminalCellWidth.of(line) <= width,
                    "a card line is wider than \(width) cells: \(line.debugDescription)")
                try require(
                    !line.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }),
                    "a card line holds a control character: \(line.debugDescription)")
            }
        }
    }
}

/// Decodes from any JSON text that is an object, and reads none of its members. JSONDecoder reads the whole
/// text before it decodes anything (any syntax error throws), so this accepts exactly the texts that
/// `JSONValue` reads as `.object`, without decoding every member into a `JSONValue` (which tries kinds in turn).
package struct JSONObjectProbe: Decodable {
    package init(from decoder: any Decoder) throws {
        _ = try decoder.container(keyedBy: JSONKey.self)
    }
}
