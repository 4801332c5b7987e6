/// The phases of CONTRACT.md §4, as `--phase` accepts them.
package enum TaskPhase: String, CaseIterable, Sendable, Equatable {
    case planning
    case observing
    case acting
    case phoneBridge = "phone_bridge"
    case waitingApp = "waiting_app"
    case waitingUser = "waiting_user"
    case verifying
    case answering
}
