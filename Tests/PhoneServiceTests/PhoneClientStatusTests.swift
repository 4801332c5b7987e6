import Foundation
import Synchronization
import TestSupport
import Testing

@testable import PhoneService

/// The phone's live status (`STATUS=`) goes out when the client starts reporting and after each step that alters
/// it, through the same `StatusReporter` as the board's; an unchanged line is never sent again, and the minute's
/// look sends nothing when nothing changed.
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
}
