import WireFormat

/// Which transitions a store change records: decided on the board's own snapshots.
extension Transition {
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
}
