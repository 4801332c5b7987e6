/// What the agent is doing right now (docs/protocol.md §4.2); the card shows it, it never drives state.
/// The board accepts only these; readers hold `OpenEnum<TaskPhase>`.
package enum TaskPhase: String, Codable, Sendable, Hashable, CaseIterable {
    case planning
    case observing
    case acting
    case phoneBridge = "phone_bridge"
    case waitingApp = "waiting_app"
    case waitingUser = "waiting_user"
    case verifying
    case answering
}
