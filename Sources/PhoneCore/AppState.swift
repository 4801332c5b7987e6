/// The companion app's state as the phone reports it to the board (`POST /api/phone/app-state`).
/// The client reports `foreground` when it starts, `inactive` when it stops, and whatever a
/// SIGUSR1 (`foreground`) or SIGUSR2 (`background`) asks for in between.
package enum AppState: String, Sendable, Equatable, CaseIterable {
    case foreground
    case background
    case inactive
}
