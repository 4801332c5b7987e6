/// What the person answers a task from the phone (`POST /api/live-activity/tasks/{request_id}/answer`). Raw
/// values are the JSON names. `stop`, `done` and `refuse` are kept on the snapshot (`answer`); `dismiss` only
/// stamps `dismissed_at` on an ended task.
package enum Answer: String, Codable, Sendable, Hashable, CaseIterable {
    /// Stop the task (it has `can_stop`); the agent ends it `canceled`.
    case stop
    /// The input the task asked for (a handoff or `needs_app`) is given.
    case done
    /// The person will not give it.
    case refuse
    /// Hide the ended card before its retention is over.
    case dismiss

    /// Whether the answer is kept on the snapshot's `answer` member (all but `dismiss`).
    package var isKeptOnTask: Bool { self != .dismiss }

    /// The transition the board records for it.
    package var transition: Transition {
        switch self {
        case .stop: .stopRequested
        case .done, .refuse: .answered
        case .dismiss: .dismissed
        }
    }
}

/// Members of a snapshot's `answer` object and of the answer request's body:
/// `{"answer":"stop","answer_id":"ans-5f0c","phone_id":"phone-1","answered_at":"…"}`.
package enum AnswerKey: String, CodingKey, CaseIterable, Sendable {
    case answer
    case answerID = "answer_id"
    case phoneID = "phone_id"
    case answeredAt = "answered_at"
}
