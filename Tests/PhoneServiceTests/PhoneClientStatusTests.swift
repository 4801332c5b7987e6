import Foundation
import Synchronization
import TestSupport
import Testing

@testable import PhoneService

/// The phone's live status (`STATUS=`) goes out when the client starts reporting and after each step that alters
/// it, through the same `StatusReporter` as the board's; an unchanged line is never sent again. It has no timer of
/// its own: a stepped wall clock shows at the next step, a safety fetch at the latest.
@Suite struct PhoneClientStatusTests {
    @Test func theStatusFollowsTheSessionAndIsSentOnlyWhenItChanges() throws {
        let harness = ClientHarness()
        let sent = Mutex<[String]>([])
        harness.client.reportStatus { text in sent.withLock { $0.append(text) } }
        #expect(sent.withLock { $0 }.count == 1, "the first line at once")
        #expect(sent.withLock { $0.first }?.hasPrefix("waiting for the board") == true)
        try harness.start()
        harness.board.start("chat_1", title: "Open Settings")
        harness.wakeSource.wake(seq: 1)
        let following = sent.withLock { $0 }
        #expect(following.last?.hasPrefix("following ") == true, "\(following)")
        #expect(following.last?.contains("last Wake at") == true, "\(following)")
        #expect(Set(following).count == following.count, "an unchanged line is not sent again")
        // Minutes without a change: the line is still true, nothing more is sent.
        harness.runtime.advance(by: .seconds(180))
        #expect(sent.withLock { $0 } == following)
    }

    @Test func theLineArmsNoTimerAndAStepOfTheWallClockShowsAtTheNextSafetyFetch() throws {
        let harness = ClientHarness()
        let sent = Mutex<[String]>([])
        harness.client.reportStatus { text in sent.withLock { $0.append(text) } }
        #expect(harness.runtime.pendingTimers.isEmpty, "an idle phone is not woken for its line")
        try harness.start()
        harness.board.start("chat_1", title: "Open Settings")
        harness.wakeSource.wake(seq: 1)
        let before = try #require(sent.withLock { $0.last })
        // The wall clock steps an hour (NTP); the last Wake's time, counted back from it, moves with it.
        harness.runtime.stepWallClock(by: 3_600)
        harness.runtime.advance(by: .seconds(61))
        let after = try #require(sent.withLock { $0.last })
        #expect(after != before)
        #expect(after.hasPrefix(before.prefix(while: { $0 != "," })), "the same task: only the time moved")
    }
}
