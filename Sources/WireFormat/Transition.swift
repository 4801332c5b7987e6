/// An alert-worthy change of a task (docs/protocol.md §5.1). Raw values are the JSON names. The board
/// records them (`TransitionLog`); the phone reads them as `OpenEnum<Transition>`.
package enum Transition: String, Codable, Sendable, Hashable, CaseIterable {
    case started
    /// The task entered `phase == waiting_user` with `current_action == request_user_input`.
    case handoff
    /// The task entered `status == needs_app`.
    case foregroundRecovery = "foreground_recovery"
    case completed
    case failed
    case canceled
    // The person's answers from the phone: recorded like the rest, never alerted for (the person caused them).
    /// The person asked from the phone to stop the task (`Answer.stop`); the agent ends it.
    case stopRequested = "stop_requested"
    /// The person answered a task that waited for them (`done` or `refuse`, in the event's `answer`).
    case answered
    /// The person dismissed the ended task's card.
    case dismissed

    /// The transition for reaching a terminal status.
    package init?(ending status: TaskStatus) {
        switch status {
        case .completed: self = .completed
        case .failed: self = .failed
        case .canceled: self = .canceled
        case .running, .needsApp: return nil
        }
    }
}
