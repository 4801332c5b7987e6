import WireFormat

/// What the person can answer back about a task from the phone (docs/protocol.md §3.8), as the phone shows it:
/// the key on the terminal card, the verb on a button, and which answers a card takes now. The answers themselves
/// are the wire's (`Answer`, `{"answer":"stop",…}`).
extension Answer {
    /// The key on the terminal card.
    package var key: Character {
        switch self {
        case .stop: "s"
        case .done: "d"
        case .refuse: "r"
        case .dismiss: "x"
        }
    }

    /// Whether the agent acts on it once recorded (it stops, or goes on), so the phone follows it
    /// (`FetchScheduler.Event.answerRecorded`): a dismissal only takes the ended card away.
    package var isFollowed: Bool { self != .dismiss }

    /// The verb a person reads on a button and in the confirmation line.
    package var verb: String {
        switch self {
        case .stop: "Stop"
        case .done: "Done"
        case .refuse: "Refuse"
        case .dismiss: "Dismiss"
        }
    }

    /// The answers `card` can take now, in the order the card lists them: `stop` while the task is active
    /// and can be stopped (and no stop is recorded yet), `done` and `refuse` while it waits for the person
    /// (a handoff or `needs_app`), `dismiss` once it has ended and is not dismissed. None without a task.
    package static func available(on card: Card) -> [Answer] {
        guard let task = card.snapshot, task.requestID != nil else { return [] }
        switch card.state {
        case .running, .needsApp, .handoff:
            var answers: [Answer] = []
            if task.canStop == true, card.recordedAnswer?.answer != .known(.stop) {
                answers.append(.stop)
            }
            if card.state == .handoff || card.state == .needsApp { answers += [.done, .refuse] }
            return answers
        case .completed, .failed, .canceled:
            return task.dismissedAt == nil ? [.dismiss] : []
        case .standby, .disconnected:
            return []
        }
    }

    /// The confirmation line asked before posting: `Stop “Open Settings”? y/N`.
    package func confirmation(title: String?) -> String {
        let name = BoardText.line(title, limit: Alert.titleLimit).map { "“\($0)”" } ?? "this task"
        return "\(verb) \(name)? y/N"
    }
}

extension Answer {
    /// A fresh `answer_id` for one press: `ans-` and 16 hex digits (within `IdentifierRule`). The same
    /// id goes with every retry of that press, so the board records the answer once.
    package static func newAnswerID(using random: inout some RandomNumberGenerator) -> String {
        let value = random.next()
        let digits = String(value, radix: 16)
        return "ans-" + String(repeating: "0", count: 16 - digits.count) + digits
    }
}
