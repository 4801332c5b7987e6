import BoardAPI
import Foundation
import Testing

/// The board's live `STATUS=`: active tasks, whether a phone is subscribed to the Wake characteristic, the time of
/// the last Wake (not its age, which would need a timer to stay true).
@Suite struct BoardStatusLineTests {
    static let now = Date(timeIntervalSince1970: 1_780_000_000)

    @Test(arguments: [
        (2, "bluez", true, nil, Double?.some(3), "2 tasks, phone subscribed, last Wake at 2026-05-28T20:26:37Z"),
        (1, "bluez", false, nil, 59.9, "1 task, no phone subscribed, last Wake at 2026-05-28T20:25:40Z"),
        (
            0, "bluez", false, "not registered with bluetoothd", 60,
            "no tasks, no phone subscribed (not registered with bluetoothd), last Wake at 2026-05-28T20:25:40Z"
        ),
        (3, "loopback", false, nil, 7_200, "3 tasks, Wakes over loopback, last Wake at 2026-05-28T18:26:40Z"),
        (0, "bluez", true, nil, -5, "no tasks, phone subscribed, last Wake at 2026-05-28T20:26:45Z"),
        (0, "bluez", false, nil, nil, "no tasks, no phone subscribed, no Wake yet"),
    ])
    func theLineSaysTasksPhoneAndLastWake(
        tasks: Int, transport: String, subscribed: Bool, problem: String?, secondsAgo: Double?, expected: String
    ) {
        let wake = WakeFacts(transport: transport, lastAt: secondsAgo.map { Self.now.addingTimeInterval(-$0) })
        let bluetooth = BluetoothFacts(adapter: "hci0", wakeSubscriber: subscribed, problem: problem)
        #expect(BoardStatusLine.text(activeTasks: tasks, wake: wake, bluetooth: bluetooth) == expected)
    }
}
