import WireFormat

/// What the phone alerts for (docs/protocol.md §5.3). `started` and `canceled` are deliberately absent: the
/// person started the task or stopped it, so telling them is noise.
package enum AlertTransition: String, Sendable, Hashable, Codable, CaseIterable {
    /// A new USB ECM session with the board.
    case connected
    case handoff
    case foregroundRecovery = "foreground_recovery"
    case completed
    case failed

    /// The alert for a board transition, nil for those that update the card silently: `started` and
    /// `canceled`, the person's own answers (`stop_requested`, `answered`, `dismissed`: the person caused
    /// them) and any name this build does not know. The switch is exhaustive, so a transition added to the
    /// vocabulary does not build until it is placed here.
    package init?(_ transition: OpenEnum<Transition>) {
        switch transition.known {
        case .handoff?: self = .handoff
        case .foregroundRecovery?: self = .foregroundRecovery
        case .completed?: self = .completed
        case .failed?: self = .failed
        case .started?, .canceled?, .stopRequested?, .answered?, .dismissed?, nil: return nil
        }
    }

    /// Whether `task` is still where this transition took it, so its step, action and error are about
    /// the alert: a handoff while the card would say "your turn", `needs_app` for a foreground
    /// recovery, the end status for a completion or failure.
    package func isShown(by task: SnapshotView) -> Bool {
        switch self {
        case .connected: false
        case .handoff: CardState(snapshot: task) == .handoff
        case .foregroundRecovery: task.status?.known == .needsApp
        case .completed: task.status?.known == .completed
        case .failed: task.status?.known == .failed
        }
    }
}
