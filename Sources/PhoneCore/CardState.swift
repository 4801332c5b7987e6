import WireFormat

/// The card's state as shown, and as written in `card` events (docs/protocol.md §8.2).
package enum CardState: String, Sendable, Equatable, CaseIterable {
    /// Talking to the board; no task to show.
    case standby
    case running
    /// The companion app must come to the foreground (`status == needs_app`).
    case needsApp = "needs_app"
    /// A person must act (`phase == waiting_user`, `current_action == request_user_input`).
    case handoff
    case completed
    case failed
    case canceled
    /// No working path to the board: USB link down, or no answer yet.
    case disconnected

    /// The state a snapshot shows. Terminal statuses win; then a handoff (a person must act, the most
    /// urgent request); then `needs_app`. An unknown or missing status shows as running: the task is
    /// there and not known to be over.
    package init(snapshot: SnapshotView) {
        switch snapshot.status?.known {
        case .completed?: self = .completed
        case .failed?: self = .failed
        case .canceled?: self = .canceled
        case .running?, .needsApp?, nil:
            if snapshot.isAwaitingUser {
                self = .handoff
            } else if snapshot.status?.known == .needsApp {
                self = .needsApp
            } else {
                self = .running
            }
        }
    }
}
