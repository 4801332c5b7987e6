import WireFormat

/// `aidenctl task wait` and `task run`'s watch for a stop: the board's wait (`GET /v1/tasks/{id}/wait`,
/// docs/protocol.md §6.6), which it answers as soon as what is awaited is on the task (an answer already recorded
/// at once), when the task ended first, or when the request's timeout passed; this reads its answer into the one
/// line to print. The executable's `TaskWaiter` asks again after each timeout until its own `--timeout` passes.
package struct TaskWait: Sendable, Equatable {
    /// What a check found.
    package enum Decision: Sendable, Equatable {
        /// It came: the one line to print, and the event (or, from the task, one like it) for `--json`.
        case came(line: String, event: JSONValue)
        /// The task ended first (`status`): a stop or an answer cannot come any more.
        case endedFirst(status: String)
    }

    package var requestID: String
    package var target: WaitTarget

    package init(requestID: String, target: WaitTarget) {
        self.requestID = requestID
        self.target = target
    }

    /// On the task as it is: the recorded answer, or the end. Nil: wait.
    package func check(task: SnapshotView) -> Decision? {
        let ended = task.status.flatMap { $0.known?.isTerminal ?? false ? $0.rawValue : nil }
        switch target {
        case .stop:
            if let answer = task.answer, answer.answer?.known == .stop {
                return came(.stopRequested, at: answer.answeredAt, phone: answer.phoneID)
            }
        case .answer:
            if let answer = task.answer, let known = answer.answer?.known, known == .done || known == .refuse {
                return came(.answered, at: answer.answeredAt, answer: known)
            }
        case .end:
            if let ended { return came(ended, at: task.endedAt) }
            return nil
        }
        return ended.map { .endedFirst(status: $0) }
    }

    /// `GET /v1/tasks/{id}/wait?for=…&timeout=S`: the board holds it up to `seconds` (0: answers at once).
    package func request(holdingFor seconds: Int) -> AgentRequest {
        let hold = min(max(seconds, 0), Self.longestHoldSeconds)
        return AgentRequest(
            method: "GET", path: Command.taskPath(requestID) + "/wait?for=\(target.rawValue)&timeout=\(hold)",
            headers: [AgentRequest.Header("Accept", "application/json")], holdSeconds: hold)
    }

    /// The longest the board holds a wait (docs/protocol.md §6.6).
    package static let longestHoldSeconds = 60

    /// The complaint about an answer that is not a wait's.
    static let notAWait = "no outcome and live_activity in the answer"

    /// What the board's answer to a wait says, from its `outcome` and the task in it: the decision, or nil when the
    /// wait's timeout passed first (ask again).
    package func decision(_ outcome: WaitOutcome, task: SnapshotView) -> Decision? {
        switch outcome {
        case .timeout:
            return nil
        case .came:
            if case let .came(line, event)? = check(task: task) { return .came(line: line, event: event) }
            // Recorded before the task ended, which cleared it from the task (the board read its ring): say what.
            let name = target == .end ? task.status?.rawValue ?? "ended" : target.transitionName
            let event: JSONValue = .object([
                EventKey.requestID.stringValue: .string(requestID), EventKey.transition.stringValue: .string(name),
            ])
            let line =
                switch target {
                case .stop: Self.stopLine(phone: nil)
                case .answer: "answered before the task ended"
                case .end: "ended \(TerminalText.escaped(name))"
                }
            return .came(line: line, event: event)
        case .ended:
            return .endedFirst(status: task.status?.rawValue ?? "ended")
        }
    }

    /// `stop requested from phone phone-1`, or `… from the phone` when it did not say which.
    static func stopLine(phone: String?) -> String {
        guard let phone, !phone.isEmpty else { return "stop requested from the phone" }
        return "stop requested from phone \(TerminalText.escaped(phone))"
    }

    /// A decision from the task alone, with an event like the ring's (no `id`: it was not read from the ring).
    private func came(
        _ transition: Transition, at: String?, phone: String? = nil, answer: Answer? = nil
    ) -> Decision {
        came(transition.rawValue, at: at, phone: phone, answer: answer)
    }

    private func came(_ name: String, at: String?, phone: String? = nil, answer: Answer? = nil) -> Decision {
        var members: [String: JSONValue] = [
            EventKey.requestID.stringValue: .string(requestID), EventKey.transition.stringValue: .string(name),
        ]
        if let at { members[EventKey.at.stringValue] = .string(at) }
        if let answer { members[EventKey.answer.stringValue] = .string(answer.rawValue) }
        let line =
            switch target {
            case .stop: Self.stopLine(phone: phone)
            case .answer: "answered \(answer?.rawValue ?? name)"
            case .end: "ended \(TerminalText.escaped(name))"
            }
        return .came(line: line, event: .object(members))
    }

    /// What `task wait` prints when it came.
    package static func output(_ line: String, event: JSONValue, json: Bool) -> String {
        (json ? JSONText.sortedLine(event) : line) + "\n"
    }
}

extension WaitTarget {
    /// How a message names it: "a stop request".
    var noun: String {
        switch self {
        case .stop: "a stop request"
        case .answer: "an answer"
        case .end: "its end"
        }
    }

    /// The ring's name for what came (for a stop or an answer).
    var transitionName: String {
        switch self {
        case .stop: Transition.stopRequested.rawValue
        case .answer: Transition.answered.rawValue
        case .end: "ended"
        }
    }
}
