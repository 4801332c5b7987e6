import FoundationEssentials
import PhoneTestSupport
import Testing
import WireFormat

@testable import PhoneCore

/// Alerts per occurrence and per phone (docs/protocol.md §5.3): keyed on the board event, only for this
/// phone's transitions, never for the person's own answers; a record written before still loads.
@Suite struct AlertPerEventTests {
    private func event(
        _ id: UInt64, _ request: String, _ transition: OpenEnum<Transition>, phone: String? = nil
    ) -> BoardEvent {
        BoardEvent(id: id, requestID: request, transition: transition, at: nil, phoneID: phone)
    }

    private func names(_ outputs: [AlertPolicy.Output]) -> [String] {
        outputs.compactMap {
            guard case .alert(let alert) = $0 else { return nil }
            return "\(alert.eventID ?? 0) \(alert.transition.rawValue) \(alert.requestID ?? "-")"
        }
    }

    private func primed(phoneID: String? = "p1", record: AlertRecord = AlertRecord()) -> AlertPolicy {
        var policy = AlertPolicy(record: record, phoneID: phoneID)
        _ = policy.receive(EventsAnswer(epoch: 7, generation: "g", events: [], next: 0))
        return policy
    }

    /// Timeline: each row is one events read; the right column the alerts it gives.
    @Test func timelineOfRequestsForInputAndAnswers() {
        var policy = primed()
        let rows: [([BoardEvent], [String])] = [
            ([event(1, "chat_1", .known(.started)), event(2, "chat_1", .known(.handoff))], ["2 handoff chat_1"]),
            ([event(3, "chat_1", "answered")], []),
            ([event(4, "chat_1", .known(.handoff))], ["4 handoff chat_1"]),  // a second request for input
            (
                [event(5, "chat_1", .known(.foregroundRecovery)), event(6, "chat_1", "answered")],
                ["5 foreground_recovery chat_1"]
            ),
            ([event(7, "chat_1", "stop_requested"), event(8, "chat_1", .known(.canceled))], []),
            ([event(9, "chat_1", "dismissed")], []),
            ([event(10, "chat_2", .known(.handoff), phone: "p2")], []),  // another phone's
            ([event(11, "chat_3", .known(.handoff), phone: "")], ["11 handoff chat_3"]),  // any phone
            ([event(12, "chat_4", .known(.failed), phone: "p1")], ["12 failed chat_4"]),  // this phone's
        ]
        var since: UInt64 = 0
        for (events, expected) in rows {
            let outputs = policy.receive(
                EventsAnswer(epoch: 7, generation: "g", events: events, next: events.last?.id ?? since))
            since = events.last?.id ?? since
            #expect(names(outputs) == expected, "\(events.map(\.id))")
        }
        // The whole ring again (a cursor reset): every event alerts once, so nothing repeats.
        let all = rows.flatMap(\.0)
        #expect(policy.receive(EventsAnswer(epoch: 7, generation: "g", events: all, next: 12)).isEmpty)
    }

    @Test func onceAcrossARestart() throws {
        var policy = primed()
        #expect(
            names(
                policy.receive(
                    EventsAnswer(epoch: 7, generation: "g", events: [event(1, "c", .known(.handoff))], next: 1))) == [
                    "1 handoff c"
                ])
        let saved = Data(policy.record.json)
        let restored = try JSONDecoder().decode(AlertRecord.self, from: saved)
        var again = AlertPolicy(record: restored, phoneID: "p1")
        let reread = EventsAnswer(
            epoch: 7, generation: "g", events: [event(1, "c", .known(.handoff)), event(2, "c", .known(.handoff))],
            next: 2)
        #expect(names(again.receive(reread)) == ["2 handoff c"])
    }

    /// A record from before event ids were keys: it loads, what its client read counts as given, and
    /// a new request for input in the same task after it alerts.
    @Test func anOlderRecordStillLoadsAndCoversWhatItRead() throws {
        let old =
            #"{"capacity":512,"cursor":{"epoch":7,"generation":"g","since":3},"has_read_events":true,"#
            + #""keys":[{"subject":"usb-1","transition":"connected"},{"epoch":7,"subject":"c","transition":"handoff"}]}"#
        let record = try JSONDecoder().decode(AlertRecord.self, from: Data(old.utf8))
        #expect(record.legacyCursor == EventCursor(since: 3, generation: "g", epoch: 7))
        #expect(record.contains(.connection("usb-1")))
        var policy = AlertPolicy(record: record, phoneID: "p1")
        // The ring read again from the start (a cursor reset): 1...3 were read by the old client.
        let ring = EventsAnswer(
            epoch: 7, generation: "g",
            events: [
                event(2, "c", .known(.handoff)), event(3, "c", .known(.completed)), event(4, "d", .known(.handoff)),
                event(5, "c", .known(.handoff)),
            ],
            next: 5)
        #expect(names(policy.receive(ring)) == ["4 handoff d", "5 handoff c"])
        // Saved and loaded again, the migration is kept, not redone from the newer cursor.
        let encoded = Data(policy.record.json)
        let reloaded = try JSONDecoder().decode(AlertRecord.self, from: encoded)
        #expect(reloaded.legacyCursor == EventCursor(since: 3, generation: "g", epoch: 7))
        #expect(reloaded == policy.record)
        // Another epoch is not covered by the old cursor.
        #expect(!reloaded.covers(.task(epoch: 8, requestID: "c", transition: .handoff, eventID: 1, generation: "g")))
        #expect(reloaded.covers(.task(epoch: 7, requestID: "x", transition: .failed, eventID: 3, generation: "g")))
        #expect(!reloaded.covers(.task(epoch: 7, requestID: "x", transition: .failed, eventID: 3, generation: "h")))
    }

    @Test func aNewRecordHasNoLegacyCursor() throws {
        var record = AlertRecord()
        record.insert(.task(epoch: 7, requestID: "c", transition: .handoff, eventID: 2))
        let text = String(decoding: record.json, as: UTF8.self)
        #expect(!text.contains("legacy_cursor"))
        #expect(try JSONDecoder().decode(AlertRecord.self, from: Data(text.utf8)).legacyCursor == nil)
    }

    /// Through the session and the fake board: the task addressed to another phone gives no alert here.
    @Test func theSessionAlertsOnlyForThisPhonesTasks() {
        let board = FakeBoard()
        var driver = SessionDriver(phoneID: "p1", board: board)
        driver.send(.started)
        board.start("mine", phoneID: "p1")
        board.handoff(of: "mine")
        board.start("theirs", phoneID: "p2")
        board.handoff(of: "theirs")
        board.start("anyone", phoneID: "")
        board.handoff(of: "anyone")
        board.handoff(of: "mine")  // a second request for input: alerts again
        driver.wake(seq: 1)
        #expect(
            driver.alertNames.filter { $0.hasPrefix("handoff") } == ["handoff mine", "handoff anyone", "handoff mine"])
        #expect(driver.everyAlertWasSavedFirst)
    }
}
