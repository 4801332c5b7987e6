import PhoneTestSupport
import Testing
import WireFormat

@testable import PhoneCore

/// The session's task cards (`PhoneSession.taskCards`, `SeenTasks`): every task the phone has seen that may still
/// be on the board, one card each, for the desktop's one notification per task.
@Suite struct PhoneSessionTaskCardsTests {
    static func ids(_ driver: SessionDriver) -> [String] {
        driver.session.taskCards.compactMap { $0.snapshot?.requestID }
    }

    /// Timeline: the current task, then another one takes the card while the first still runs (`others` says so),
    /// and a handoff of the first is read for its alert: both have a card, each as the board said it last.
    @Test func everyTaskSeenHasItsCardUntilTheBoardSaysItIsGone() {
        let board = FakeBoard()
        board.start("chat_1")
        var driver = SessionDriver(board: board)
        #expect(driver.session.taskCards.isEmpty, "nothing before the start")
        driver.send(.started)
        #expect(Self.ids(driver) == ["chat_1"])
        board.start("chat_2", title: "Deploy")
        board.others = (active: 1, waiting: 0)
        driver.wake(seq: 1)
        #expect(Self.ids(driver) == ["chat_1", "chat_2"])
        board.handoff(step: "Enter the password", of: "chat_1")
        board.others = (active: 0, waiting: 1)
        driver.wake(seq: 2)
        #expect(driver.session.taskCards.first?.state == .handoff, "the first task read for its alert")
        // The first ends: read for its alert, its card stays ended (it leaves at its dismissal time).
        board.others = (active: 0, waiting: 0)
        board.end("completed", of: "chat_1")
        driver.wake(seq: 3)
        #expect(driver.session.taskCards.map(\.state) == [.running, .completed])
        // A third task, and nothing else active: the second, still listed as running, has gone.
        board.start("chat_3")
        driver.wake(seq: 4)
        #expect(Self.ids(driver) == ["chat_1", "chat_3"])
    }

    @Test func nothingCurrentClearsEveryCardAndADismissalLeavesAtOnce() {
        let board = FakeBoard()
        board.start("chat_1")
        var driver = SessionDriver(board: board)
        driver.send(.started)
        board.end("completed")
        driver.wake(seq: 1)
        #expect(driver.session.taskCards.map(\.state) == [.completed])
        driver.send(.personAnswered(.dismiss, requestID: "chat_1", answerID: "ans-1"))
        #expect(driver.session.taskCards.isEmpty)
        board.start("chat_2")
        driver.wake(seq: 2)
        #expect(Self.ids(driver) == ["chat_2"])
        board.removeAll()
        driver.wake(seq: 3)
        #expect(driver.session.taskCards.isEmpty)
    }
}
