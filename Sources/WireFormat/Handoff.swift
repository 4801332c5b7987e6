/// When a task hands over to a person: `phase == waiting_user` with
/// `current_action == request_user_input`. The board records the `handoff` transition on entering
/// it and the phone shows the "your turn" card; both ask here, so they cannot disagree.
package enum Handoff {
    /// The `current_action` that, in `waiting_user`, means a person must act on the phone.
    package static let requestUserInputAction = "request_user_input"

    package static func isAwaitingUser(phase: TaskPhase?, currentAction: String?) -> Bool {
        phase == .waitingUser && currentAction == requestUserInputAction
    }
}
