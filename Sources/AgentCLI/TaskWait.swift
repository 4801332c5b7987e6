import WireFormat

/// `aidenctl task wait`: what counts as the thing awaited, on the task as it is (an answer already recorded
/// counts at once) and on each event of the board's ring after that; the executable's `TaskWaiter` reads
/// them and prints what this decides.
package struct TaskWait: Sendable, Equatable {
    /// `--for`.
    package enum Target: String, CaseIterable, Sendable {
        /// The person asked to stop the task (`stop_requested`).
        case stop
        /// The person answered it `done` or `refuse` (`answered`).
        case answer
        /// The task ended (`completed`, `failed`, `canceled`).
        case end

        /// How a message names it: "a stop request".
        var noun: String {
            switch self {
            case .stop: "a stop request"
            case .answer: "an answer"
            case .end: "its end"
            }
        }
    }

    /// What a check found.
    package enum Decision: Sendable, Equatable {
        /// It came: the one line to print, and the event (or, from the task, one like it) for `--json`.
        case came(line: String, event: JSONValue)
        /// The task ended first (`status`): a stop or an answer cannot come any more.
        case endedFirst(status: String)
    }

    package var requestID: String
    package var target: Target

    package init(requestID: String, target: Target) {
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

    /// On one event of the ring: nil for another task's, or one that is not awaited. `task` is the task read
    /// after the event, when there is one: the phone that asked for a stop is on it.
    package func check(event: JSONValue, task: SnapshotView? = nil) -> Decision? {
        guard case let .object(members) = event, members[EventKey.requestID.stringValue] == .string(requestID),
            case let .string(name)? = members[EventKey.transition.stringValue]
        else { return nil }
        let transition = Transition(rawValue: name)
        let isEnd = transition.map { TaskStatus(rawValue: $0.rawValue)?.isTerminal ?? false } ?? false
        switch target {
        case .stop where transition == .stopRequested:
            let phone = task?.answer.flatMap { $0.answer?.known == .stop ? $0.phoneID : nil }
            return .came(line: Self.stopLine(phone: phone), event: event)
        case .answer where transition == .answered:
            guard case let .string(answer)? = members[EventKey.answer.stringValue] else { return nil }
            return .came(line: "answered \(TerminalText.escaped(answer))", event: event)
        case .end where isEnd:
            return .came(line: "ended \(name)", event: event)
        case .stop, .answer:
            return isEnd ? .endedFirst(status: name) : nil
        case .end:
            return nil
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
