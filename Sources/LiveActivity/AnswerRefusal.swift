import WireFormat

/// Why the store refused an answer of the person's (`TaskStore.answer`): the task is not in a state the answer
/// fits. Each has its own error code, so the phone can say which without reading the message.
package enum AnswerRefusal: Sendable, Hashable, CustomStringConvertible {
    /// `stop` on an active task that does not have `can_stop`.
    case notStoppable(id: String)
    /// `stop` on a task that has ended (`status`).
    case taskEnded(id: String, status: TaskStatus)
    /// `done` or `refuse` on a task that does not wait for the person (no handoff, not `needs_app`, or ended).
    case notWaiting(id: String, answer: Answer)
    /// `dismiss` on a task that has not ended.
    case notEnded(id: String)
    /// The answer was given on a card of revision `shown`, and the task has since started again under the same
    /// id or (for `done` and `refuse`) begun another wait: it answers what the person no longer sees.
    case staleRevision(id: String, shown: UInt64, current: UInt64)

    /// `not_stoppable`, `task_ended`, `not_waiting`, `not_ended` or `stale_revision`.
    package var code: String {
        switch self {
        case .notStoppable: "not_stoppable"
        case .taskEnded: "task_ended"
        case .notWaiting: "not_waiting"
        case .notEnded: "not_ended"
        case .staleRevision: "stale_revision"
        }
    }

    package var description: String {
        switch self {
        case let .notStoppable(id):
            "task \(TaskValidationError.quoted(id)) cannot be stopped from the phone (its agent did not set can_stop)"
        case let .taskEnded(id, status):
            "task \(TaskValidationError.quoted(id)) has already ended (status \(status.rawValue))"
        case let .notWaiting(id, answer):
            "task \(TaskValidationError.quoted(id)) is not waiting for the person, so there is nothing to answer "
                + "\(answer.rawValue) to (it asks through a handoff or needs_app)"
        case let .notEnded(id):
            "task \(TaskValidationError.quoted(id)) has not ended; only an ended card can be dismissed"
        case let .staleRevision(id, shown, current):
            "task \(TaskValidationError.quoted(id)) changed since revision \(shown), which the answer was given on "
                + "(it is at revision \(current) now, with another start or another question): look at the card again"
        }
    }
}
