/// The companion app's state as the phone reports it to the board (docs/protocol.md §3.3
/// `POST /api/phone/app-state`). aiden-phone reports `foreground` when it starts, `inactive` when
/// it stops, and whatever a SIGUSR1 (`foreground`) or SIGUSR2 (`background`) asks for in between;
/// the board refuses any other name.
package enum AppState: String, Sendable, Hashable, Codable, CaseIterable {
    case foreground
    case background
    case inactive
}
