import WireFormat

/// The phone's live `STATUS=` for systemd (`systemctl --user status aiden-phone` shows it): "following board-…:
/// Open Settings [RUNNING], last Wake 2 s ago", or "waiting for the board (USB link down)". Pure: the shell passes
/// the session's facts and the monotonic time, and sends the text.
package enum PhoneStatusLine {
    /// `board`: the board's `board-<instance_id>` (nil or empty: not known); `card`: the card as last shown (nil:
    /// not started); `lastWakeAt`: when the last Wake envelope came in (monotonic, nil: none yet).
    package static func text(board: String?, card: Card?, lastWakeAt: Duration?, now: Duration) -> String {
        guard let card, card.state != .disconnected else {
            let why = card?.link.usb == .down ? " (USB link down)" : ""
            return "waiting for the board\(why)" + wake(card?.link, lastWakeAt: lastWakeAt, now: now)
        }
        let who = board.flatMap { $0.isEmpty ? nil : $0 } ?? "the board"
        let task =
            card.state == .standby
            ? "no task"
            : "\(BoardText.line(card.snapshot?.taskTitle, limit: 60) ?? "untitled task") [\(label(card.state))]"
        return "following \(who): \(task)" + wake(card.link, lastWakeAt: lastWakeAt, now: now)
    }

    /// `, last Wake 2 s ago`, and what keeps the Wake link from working when it does not.
    static func wake(_ link: LinkState?, lastWakeAt: Duration?, now: Duration) -> String {
        let last = lastWakeAt.map { ", last Wake \(age(now - $0))" } ?? ", no Wake yet"
        guard let link, link.wake != .connected else { return last }
        return last + ", Wake link \(link.wake.rawValue)"
    }

    static func label(_ state: CardState) -> String {
        switch state {
        case .needsApp: "NEEDS APP"
        default: state.rawValue.uppercased()
        }
    }

    /// `2 s ago`, `4 min ago`, `2 h ago`, `3 d ago`, rounded down.
    static func age(_ duration: Duration) -> String {
        let seconds = max(0, duration.components.seconds)
        switch seconds {
        case ..<60: return "\(seconds) s ago"
        case ..<3600: return "\(seconds / 60) min ago"
        case ..<86_400: return "\(seconds / 3600) h ago"
        default: return "\(seconds / 86_400) d ago"
        }
    }
}
