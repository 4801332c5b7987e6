import Logging
import PhoneTestSupport
import Platform
import TestSupport
import Testing

@testable import PhoneService

/// The phone's journal fields: each alert with its task and transition, each Wake received with its sequence (the
/// board's `WAKE_SEQ` of the same Wake), so one `journalctl REQUEST_ID=…` or `WAKE_SEQ=…` follows it across both.
@Suite struct PhoneLogFieldsTests {
    @Test func alertsCarryTheirTaskAndTransitionAndWakesTheirSequence() throws {
        let harness = ClientHarness(board: FakeBoard())
        try harness.start()
        harness.board.start("chat_1")
        harness.board.handoff()
        harness.wakeSource.wake(seq: 1)
        harness.board.end("completed")
        harness.wakeSource.wake(seq: 2)
        harness.settle()

        let alerts = harness.logs.entries.filter { $0.message.hasPrefix("alert: ") }
        #expect(alerts.map { $0[.transition] } == ["connected", "handoff", "completed"])
        #expect(alerts.map { $0[.requestID] } == [nil, "chat_1", "chat_1"])
        #expect(alerts.allSatisfy { $0.level == .notice })
        #expect(harness.logs.entries.compactMap { $0[.wakeSequence] } == ["1", "2"])
    }
}
