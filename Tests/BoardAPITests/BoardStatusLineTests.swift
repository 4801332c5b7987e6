import BoardAPI
import Foundation
import Testing

/// The board's live `STATUS=`: active tasks, whether a phone is subscribed to the Wake characteristic, the age of
/// the last Wake.
@Suite struct BoardStatusLineTests {
    static let now = Date(timeIntervalSince1970: 1_780_000_000)

    @Test(arguments: [
        (2, "bluez", true, nil, Double?.some(3), "2 tasks, phone subscribed, last Wake 3 s ago"),
        (1, "bluez", false, nil, 59.9, "1 task, no phone subscribed, last Wake 59 s ago"),
        (
            0, "bluez", false, "not registered with bluetoothd", 60,
            "no tasks, no phone subscribed (not registered with bluetoothd), last Wake 1 min ago"
        ),
        (3, "loopback", false, nil, 7_200, "3 tasks, Wakes over loopback, last Wake 2 h ago"),
        (0, "loopback", false, nil, 200_000, "no tasks, Wakes over loopback, last Wake 2 d ago"),
        (0, "bluez", true, nil, -5, "no tasks, phone subscribed, last Wake 0 s ago"),
        (0, "bluez", false, nil, nil, "no tasks, no phone subscribed, no Wake yet"),
    ])
    func theLineSaysTasksPhoneAndLastWake(
        tasks: Int, transport: String, subscribed: Bool, problem: String?, secondsAgo: Double?, expected: String
    ) {
        let wake = WakeFacts(transport: transport, lastAt: secondsAgo.map { Self.now.addingTimeInterval(-$0) })
        let bluetooth = BluetoothFacts(adapter: "hci0", wakeSubscriber: subscribed, problem: problem)
        #expect(BoardStatusLine.text(activeTasks: tasks, wake: wake, bluetooth: bluetooth, now: Self.now) == expected)
    }
}
