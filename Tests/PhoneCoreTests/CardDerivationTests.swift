import Testing
import WireFormat

@testable import PhoneCore

@Suite struct CardDerivationTests {
    private func status(_ snapshot: SnapshotView, _ status: OpenEnum<TaskStatus>?) -> SnapshotView {
        var copy = snapshot
        copy.status = status
        return copy
    }

    @Test func everyStateFromItsSnapshot() {
        let table: [(SnapshotView, CardState)] = [
            (Fixtures.running, .running),
            (Fixtures.needsApp, .needsApp),
            (Fixtures.handoff, .handoff),
            (status(Fixtures.handoff, .known(.needsApp)), .handoff),  // a person must act: the most urgent
            (Fixtures.ended(.completed), .completed),
            (Fixtures.ended(.failed, error: "Settings crashed"), .failed),
            (Fixtures.ended(.canceled), .canceled),
            (status(Fixtures.handoff, .known(.completed)), .completed),  // an ended task is over, whatever its phase
            (status(Fixtures.running, .unknown("paused")), .running),
            (status(Fixtures.running, nil), .running),
        ]
        for (snapshot, state) in table {
            let card = Card.derive(link: Fixtures.usbUp, answer: .snapshot(snapshot), problem: nil)
            #expect(card.state == state, "\(snapshot.status?.rawValue ?? "nil") \(snapshot.phase?.rawValue ?? "")")
            #expect(card.snapshot == snapshot)
        }
    }

    @Test func aWaitingUserPhaseWithoutTheRequestIsNotAHandoff() {
        var snapshot = Fixtures.handoff
        snapshot.currentAction = "tap"
        #expect(CardState(snapshot: snapshot) == .running)
    }

    @Test func notFoundIsStandbyWhileConnected() {
        #expect(
            Card.derive(link: Fixtures.usbUp, answer: .notFound, problem: nil)
                == Card(state: .standby, link: Fixtures.usbUp))
        #expect(Card.derive(link: Fixtures.loopback, answer: .notFound, problem: nil).state == .standby)
    }

    @Test func withoutTheUSBLinkTheCardIsDisconnectedAndShowsNothingStale() {
        let card = Card.derive(
            link: Fixtures.usbDown, answer: .snapshot(Fixtures.running), problem: .unreachable(detail: "no route"))
        #expect(card == Card(state: .disconnected, link: Fixtures.usbDown))
    }

    @Test func beforeTheFirstAnswerTheCardIsDisconnectedWithTheProblemIfAny() {
        #expect(
            Card.derive(link: Fixtures.usbUp, answer: nil, problem: nil)
                == Card(state: .disconnected, link: Fixtures.usbUp))
        let forbidden = Card.derive(link: Fixtures.usbUp, answer: nil, problem: .forbidden(message: nil))
        #expect(forbidden == Card(state: .disconnected, problem: .forbidden(message: nil), link: Fixtures.usbUp))
    }

    @Test func aFailedFetchKeepsTheLastAnswerAndShowsTheProblem() {
        let problem = BoardProblem.malformed(BoardAnswerError(kind: .notJSON, message: "not valid JSON"))
        let card = Card.derive(link: Fixtures.usbUp, answer: .snapshot(Fixtures.running), problem: problem)
        #expect(card == Card(state: .running, snapshot: Fixtures.running, problem: problem, link: Fixtures.usbUp))
    }

    /// The terminal card stays exactly as long as the board keeps returning the ended task.
    @Test func terminalTextStaysUntilTheBoardStopsReturningIt() {
        let ended = Fixtures.ended(.completed)
        var answers: [CurrentAnswer] = [.snapshot(Fixtures.running), .snapshot(ended), .snapshot(ended), .notFound]
        answers.append(.snapshot(Fixtures.handoff))  // the next task
        let states = answers.map { Card.derive(link: Fixtures.usbUp, answer: $0, problem: nil).state }
        #expect(states == [.running, .completed, .completed, .standby, .handoff])
    }
}
