import FoundationEssentials
import WireFormat

/// The phone's live `STATUS=` for systemd (`systemctl --user status aiden-phone` shows it): "following board-…:
/// Open Settings [RUNNING], last Wake at 2026-06-12T07:00:02Z", or "waiting for the board (USB link down)". The
/// Wake's time, not its age: a line that does not go stale by itself needs no timer, so an idle phone does not
/// wake for it. Pure: the shell passes the session's facts, the monotonic time and the wall clock beside it, and
/// sends the text.
package enum PhoneStatusLine {
    /// `board`: the board's `board-<instance_id>` (nil or empty: not known); `card`: the card as last shown (nil:
    /// not started); `lastWakeAt`: when the last Wake envelope came in (monotonic, nil: none yet); `wall`: the wall
    /// clock at `now`.
    package static func text(board: String?, card: Card?, lastWakeAt: Duration?, now: Duration, wall: Date) -> String {
        guard let card, card.state != .disconnected else {
            let why = card?.link.usb == .down ? " (USB link down)" : ""
            return "waiting for the board\(why)" + wake(card?.link, lastWakeAt: lastWakeAt, now: now, wall: wall)
        }
        let who = board.flatMap { $0.isEmpty ? nil : $0 } ?? "the board"
        let task =
            card.state == .standby
            ? "no task"
            : "\(BoardText.line(card.snapshot?.taskTitle, limit: 60) ?? "untitled task") [\(label(card.state))]"
        return "following \(who): \(task)" + wake(card.link, lastWakeAt: lastWakeAt, now: now, wall: wall)
    }

    /// `, last Wake at 2026-06-12T07:00:02Z` (whole seconds), and what keeps the Wake link from working when it
    /// does not.
    static func wake(_ link: LinkState?, lastWakeAt: Duration?, now: Duration, wall: Date) -> String {
        let last = lastWakeAt.map { ", last Wake at \(time(of: $0, now: now, wall: wall))" } ?? ", no Wake yet"
        guard let link, link.wake != .connected else { return last }
        return last + ", Wake link \(link.wake.rawValue)"
    }

    static func label(_ state: CardState) -> String {
        switch state {
        case .needsApp: "NEEDS APP"
        default: state.rawValue.uppercased()
        }
    }

    /// The wall-clock time of the monotonic `instant`, seen from (`now`, `wall`), in whole seconds.
    static func time(of instant: Duration, now: Duration, wall: Date) -> String {
        let (seconds, attoseconds) = (now - instant).components
        let at = wall.addingTimeInterval(-(Double(seconds) + Double(attoseconds) / 1e18))
        return Date(timeIntervalSince1970: at.timeIntervalSince1970.rounded(.down)).formatted(.iso8601)
    }
}
