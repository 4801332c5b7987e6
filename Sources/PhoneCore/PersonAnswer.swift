/// What the person can answer back about a task from the phone (docs/protocol.md §3.8): stop it, say the input it
/// asked for is given (`done`) or refuse it, or dismiss an ended card. The names are the wire's
/// (`POST /api/live-activity/tasks/{id}/answer`, `{"answer":"stop",…}`).
package enum PersonAnswer: String, Sendable, Hashable, CaseIterable {
    case stop
    case done
    case refuse
    case dismiss

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
    package static func available(on card: Card) -> [PersonAnswer] {
        guard let task = card.snapshot, task.requestID != nil else { return [] }
        switch card.state {
        case .running, .needsApp, .handoff:
            var answers: [PersonAnswer] = []
            if task.canStop == true, card.extras.answer?.answer != PersonAnswer.stop.rawValue {
                answers.append(.stop)
            }
            if card.state == .handoff || card.state == .needsApp { answers += [.done, .refuse] }
            return answers
        case .completed, .failed, .canceled:
            return card.extras.dismissedAt == nil ? [.dismiss] : []
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

extension PersonAnswer {
    /// A fresh `answer_id` for one press: `ans-` and 16 hex digits (within `IdentifierRule`). The same
    /// id goes with every retry of that press, so the board records the answer once.
    package static func newAnswerID(using random: inout some RandomNumberGenerator) -> String {
        let value = random.next()
        let digits = String(value, radix: 16)
        return "ans-" + String(repeating: "0", count: 16 - digits.count) + digits
    }
}
