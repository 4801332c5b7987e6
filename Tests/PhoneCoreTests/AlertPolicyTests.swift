import FoundationEssentials
import Testing
import WireFormat

@testable import PhoneCore

@Suite struct AlertPolicyTests {
    /// A policy that has already taken in one (empty) read, as a client past its first start is.
    private func primedPolicy(epoch: UInt16 = 1234, generation: String = "g1") -> AlertPolicy {
        var policy = AlertPolicy()
        _ = policy.receive(EventsAnswer(epoch: epoch, generation: generation, events: [], next: 0))
        return policy
    }

    private func event(_ id: UInt64, _ request: String, _ transition: OpenEnum<Transition>) -> BoardEvent {
        BoardEvent(id: id, requestID: request, transition: transition, at: "2026-06-12T07:00:0\(id % 10)Z")
    }

    private func alerts(_ outputs: [AlertPolicy.Output]) -> [String] {
        outputs.compactMap {
            guard case .alert(let alert) = $0 else { return nil }
            return "\(alert.transition.rawValue) \(alert.requestID ?? alert.connectionID ?? "-")"
        }
    }

    @Test func alertsOnceForEachAlertWorthyTransitionAndNeverForTheOthers() {
        var policy = primedPolicy()
        let answer = EventsAnswer(
            epoch: 1234, generation: "g1",
            events: [
                event(1, "chat_1", .known(.started)),
                event(2, "chat_1", .known(.handoff)),
                event(3, "chat_1", .known(.foregroundRecovery)),
                event(4, "chat_1", .known(.completed)),
                event(5, "chat_2", .known(.started)),
                event(6, "chat_2", .known(.failed)),
                event(7, "chat_3", .known(.started)),
                event(8, "chat_3", .known(.canceled)),
                event(9, "chat_3", .unknown("paused")),  // a newer board's transition: silent
            ], next: 9)
        let outputs = policy.receive(answer)
        #expect(
            alerts(outputs) == [
                "handoff chat_1", "foreground_recovery chat_1", "completed chat_1", "failed chat_2",
            ])
        guard case .alert(let first)? = outputs.first else {
            Issue.record("no alert")
            return
        }
        var expected = Alert(
            transition: .handoff, requestID: "chat_1", epoch: 1234, eventID: 2, boardTime: "2026-06-12T07:00:02Z")
        expected.generation = "g1"
        #expect(first == expected)
        #expect(policy.cursor == EventCursor(since: 9, generation: "g1", epoch: 1234))
        // The same events again (a board that answers from an old cursor): nothing repeats.
        #expect(policy.receive(answer).isEmpty)
    }

    /// Each request for input is an event of its own (docs/protocol.md §5.3): the second one alerts too.
    @Test func aSecondHandoffOfTheSameTaskAlertsAgain() {
        var policy = primedPolicy()
        #expect(
            alerts(
                policy.receive(
                    EventsAnswer(
                        epoch: 1234, generation: "g1", events: [event(1, "chat_1", .known(.handoff))], next: 1))) == [
                    "handoff chat_1"
                ])
        let second = EventsAnswer(
            epoch: 1234, generation: "g1", events: [event(2, "chat_1", .known(.handoff))], next: 2)
        #expect(alerts(policy.receive(second)) == ["handoff chat_1"])
        #expect(policy.receive(second).isEmpty)
    }

    /// The handoff began and ended between two fetches, so no fetched snapshot ever showed it; the
    /// ring still has it.
    @Test func aHandoffResolvedBetweenTwoFetchesStillAlertsOnce() {
        var policy = primedPolicy()
        let card = Card.derive(link: Fixtures.usbUp, answer: .snapshot(Fixtures.running), problem: nil)
        #expect(card.state == .running)
        let answer = EventsAnswer(
            epoch: 1234, generation: "g1", events: [event(1, "chat_1", .known(.handoff))], next: 1)
        #expect(alerts(policy.receive(answer)) == ["handoff chat_1"])
        #expect(policy.receive(EventsAnswer(epoch: 1234, generation: "g1", events: [], next: 1)).isEmpty)
    }

    @Test func aRestartedClientWithItsRecordDoesNotRepeatAlerts() throws {
        var policy = primedPolicy()
        let answer = EventsAnswer(
            epoch: 1234, generation: "g1",
            events: [
                event(1, "chat_1", .known(.handoff)), event(2, "chat_1", .known(.completed)),
            ], next: 2)
        #expect(alerts(policy.receive(answer)).count == 2)
        #expect(policy.usbConnected(connectionID: "usb-1") != nil)

        let saved = Data(policy.record.json)
        var restarted = AlertPolicy(record: try JSONDecoder().decode(AlertRecord.self, from: saved))
        #expect(restarted.cursor == EventCursor(since: 2, generation: "g1", epoch: 1234))
        // Even a reread of the whole ring (the cursor lost) repeats nothing.
        restarted.resetCursor()
        #expect(restarted.receive(answer).isEmpty)
        #expect(restarted.usbConnected(connectionID: "usb-1") == nil)
        let later = EventsAnswer(epoch: 1234, generation: "g1", events: [event(3, "chat_2", .known(.failed))], next: 3)
        #expect(alerts(restarted.receive(later)) == ["failed chat_2"])
    }

    @Test func resetRequiredRestartsTheCursorInTheNewGenerationWithoutRepeatingAlerts() {
        var policy = primedPolicy()
        #expect(
            alerts(
                policy.receive(
                    EventsAnswer(
                        epoch: 1234, generation: "g1",
                        events: [
                            event(4, "chat_1", .known(.handoff))
                        ], next: 4))) == ["handoff chat_1"])

        // The board's ring was reset: the events in this answer are not read; the cursor restarts.
        let reset = EventsAnswer(
            epoch: 1234, generation: "g2", events: [event(1, "chat_1", .known(.handoff))], next: 2, resetRequired: true)
        #expect(policy.receive(reset) == [.readAgain])
        #expect(policy.cursor == EventCursor(since: 0, generation: "g2", epoch: 1234))

        // The reread from 0: ids restart with a generation, so these are new events; each alerts once.
        let reread = EventsAnswer(
            epoch: 1234, generation: "g2",
            events: [
                event(1, "chat_1", .known(.handoff)), event(2, "chat_1", .known(.completed)),
            ], next: 2)
        #expect(alerts(policy.receive(reread)) == ["handoff chat_1", "completed chat_1"])
        #expect(policy.receive(reread).isEmpty)
        #expect(policy.cursor == EventCursor(since: 2, generation: "g2", epoch: 1234))
    }

    @Test func aBoardThatKeepsAskingForAResetIsReadAnywayRatherThanLooping() {
        var policy = primedPolicy()
        let reset = EventsAnswer(
            epoch: 1234, generation: "g2", events: [event(1, "chat_9", .known(.failed))], next: 1, resetRequired: true)
        #expect(policy.receive(reset) == [.readAgain])
        #expect(alerts(policy.receive(reset)) == ["failed chat_9"])
    }

    @Test func aNewEpochResetsTheCursorAndItsTransitionsAlertEvenForAKnownRequestID() {
        var policy = primedPolicy(epoch: 1, generation: "g1")
        #expect(
            alerts(
                policy.receive(
                    EventsAnswer(
                        epoch: 1, generation: "g1", events: [event(1, "chat_1", .known(.completed))], next: 1))
            ).count == 1)
        // The board's state directory was recreated: new epoch, new generation, ids from 1 again.
        let fresh = EventsAnswer(epoch: 2, generation: "g9", events: [event(1, "chat_1", .known(.completed))], next: 1)
        #expect(policy.receive(fresh) == [.readAgain])
        #expect(policy.cursor == EventCursor(since: 0, generation: "g9", epoch: 2))
        #expect(alerts(policy.receive(fresh)) == ["completed chat_1"])
    }

    @Test func aWakeFromANewEpochResetsTheCursor() {
        var policy = primedPolicy()
        _ = policy.receive(EventsAnswer(epoch: 1234, generation: "g1", events: [], next: 17))
        #expect(policy.cursor.since == 17)
        policy.resetCursor()
        #expect(policy.cursor == EventCursor())
    }

    @Test func truncatedReportsMissedTransitionsAndContinues() {
        var policy = primedPolicy()
        let answer = EventsAnswer(
            epoch: 1234, generation: "g1", events: [event(300, "chat_1", .known(.failed))], next: 300, truncated: true)
        let outputs = policy.receive(answer)
        #expect(outputs.first == .eventsMissed)
        #expect(alerts(outputs) == ["failed chat_1"])
        #expect(policy.cursor.since == 300)
    }

    @Test func theFirstReadRecordsTheRingSilentlyByDefault() {
        var policy = AlertPolicy()
        let history = EventsAnswer(
            epoch: 1234, generation: "g1",
            events: [
                event(1, "chat_1", .known(.completed)), event(2, "chat_2", .known(.handoff)),
            ], next: 2, truncated: true)
        #expect(policy.receive(history).isEmpty)  // neither old alerts nor "missed" for history
        #expect(policy.record.hasReadEvents)
        #expect(
            policy.record.contains(
                .task(epoch: 1234, requestID: "chat_2", transition: .handoff, eventID: 2, generation: "g1")))
        let next = EventsAnswer(
            epoch: 1234, generation: "g1", events: [event(3, "chat_2", .known(.completed))], next: 3)
        #expect(alerts(policy.receive(next)) == ["completed chat_2"])
    }

    @Test func theFirstReadCanAlertToo() {
        var policy = AlertPolicy(firstRead: .alert)
        let history = EventsAnswer(
            epoch: 1234, generation: "g1", events: [event(1, "chat_1", .known(.handoff))], next: 1)
        #expect(alerts(policy.receive(history)) == ["handoff chat_1"])
    }

    @Test func connectedAlertsOncePerConnectionID() {
        var policy = AlertPolicy()
        #expect(policy.usbConnected(connectionID: "usb-1") == Alert(transition: .connected, connectionID: "usb-1"))
        #expect(policy.usbConnected(connectionID: "usb-1") == nil)  // the same session reported again
        #expect(policy.usbConnected(connectionID: "usb-2")?.connectionID == "usb-2")  // replugged
    }

    @Test func alertKeysIncludeTheEpochFromTheCursorWhenTheAnswerOmitsIt() {
        var policy = primedPolicy(epoch: 77)
        let answer = EventsAnswer(epoch: nil, generation: "g1", events: [event(1, "chat_1", .known(.failed))], next: 1)
        #expect(alerts(policy.receive(answer)) == ["failed chat_1"])
        #expect(
            policy.record.contains(
                .task(epoch: 77, requestID: "chat_1", transition: .failed, eventID: 1, generation: "g1")))
    }
}
