/// An alert-worthy change of a task (CONTRACT §5). Raw values are the JSON names.
package enum Transition: String, Codable, Sendable, Hashable, CaseIterable {
    case started
    /// The task entered `phase == waiting_user` with `current_action == request_user_input`.
    case handoff
    /// The task entered `status == needs_app`.
    case foregroundRecovery = "foreground_recovery"
    case completed
    case failed
    case canceled

    /// The transitions a change from `old` (nil: the task is new) to `new` makes, in the order they are
    /// recorded. Only *entering* a state counts, so repeated updates inside it record nothing.
    package static func changes(from old: TaskSnapshot?, to new: TaskSnapshot) -> [Transition] {
        var result: [Transition] = []
        if old == nil {
            result.append(.started)
        }
        if new.status == .needsApp, old?.status != .needsApp {
            result.append(.foregroundRecovery)
        }
        if new.isAwaitingUser, old?.isAwaitingUser != true {
            result.append(.handoff)
        }
        if new.status.isTerminal, old?.status.isTerminal != true, let ending = Transition(ending: new.status) {
            result.append(ending)
        }
        return result
    }

    /// The transition for reaching a terminal status.
    init?(ending status: TaskStatus) {
        switch status {
        case .completed: self = .completed
        case .failed: self = .failed
        case .canceled: self = .canceled
        case .running, .needsApp: return nil
        }
    }
}
