import FoundationEssentials
import Testing
import WireFormat

@testable import PhoneCore

/// The phone's live `STATUS=`: which board it follows, the task on its card, and the time of the last Wake
/// (the wall clock at 100 s of the monotonic clock is 2026-05-28T20:26:40Z).
@Suite struct PhoneStatusLineTests {
    static let up = LinkState(usb: .up, wake: .connected)
    static let task = SnapshotView(
        requestID: "chat_1", status: .known(.running), taskTitle: "Open Settings")

    @Test(arguments: [
        (
            "board-7f3a", Card(state: .running, snapshot: task, link: up), Duration?.some(.seconds(98)),
            "following board-7f3a: Open Settings [RUNNING], last Wake at 2026-05-28T20:26:38Z"
        ),
        (
            "board-7f3a", Card(state: .needsApp, snapshot: task, link: up), .seconds(40),
            "following board-7f3a: Open Settings [NEEDS APP], last Wake at 2026-05-28T20:25:40Z"
        ),
        (
            "board-7f3a", Card(state: .handoff, snapshot: task, link: LinkState(usb: .up, wake: .connecting)),
            .seconds(100),
            "following board-7f3a: Open Settings [HANDOFF], last Wake at 2026-05-28T20:26:40Z, Wake link connecting"
        ),
        ("", Card(state: .standby, link: up), nil, "following the board: no task, no Wake yet"),
        (
            nil, Card(state: .completed, snapshot: SnapshotView(taskTitle: "a\nb\u{1B}[2J"), link: up), nil,
            "following the board: a b [2J [COMPLETED], no Wake yet"
        ),
        (
            nil, Card(state: .failed, snapshot: SnapshotView(), link: up), nil,
            "following the board: untitled task [FAILED], no Wake yet"
        ),
        (
            "board-7f3a", Card(state: .disconnected, link: LinkState(usb: .down, wake: .connected)), .seconds(0),
            "waiting for the board (USB link down), last Wake at 2026-05-28T20:25:00Z"
        ),
        (nil, nil, nil, "waiting for the board, no Wake yet"),
    ])
    func theLineSaysWhatThePhoneFollows(board: String?, card: Card?, lastWakeAt: Duration?, expected: String) {
        let wall = Date(timeIntervalSince1970: 1_780_000_000)
        #expect(
            PhoneStatusLine.text(board: board, card: card, lastWakeAt: lastWakeAt, now: .seconds(100), wall: wall)
                == expected)
    }
}
