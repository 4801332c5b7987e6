import PhoneCore
import PhoneTestSupport
import Testing

@testable import PhoneService

/// `aiden-phone stop|done|refuse|dismiss [ID]` against the fake board, which answers the endpoint as
/// docs/protocol.md §3.8 has it: the line printed and the exit status for each case.
@Suite struct PhoneAnswerCommandTests {
    private func run(
        _ board: FakeBoard, _ answer: PersonAnswer, _ id: String? = nil, phoneID: String = "p1"
    ) -> PhoneAnswerCommand.Result {
        PhoneAnswerCommand.answer(answer, requestID: id, phoneID: phoneID, answerID: "ans-1", perform: board.answer)
    }

    @Test func theCurrentTaskIsTheDefault() {
        let board = FakeBoard()
        board.start("chat_1", canStop: true)
        let result = run(board, .stop)
        #expect(result == .init(line: "Stop requested for “Open Settings” (chat_1)", status: 0))
        #expect(board.requests.first == .current(phoneID: "p1", ifNoneMatch: nil))
        #expect(board.answers.map(\.requestID) == ["chat_1"])
        #expect(board.answers.map(\.phoneID) == ["p1"])
    }

    /// Without an ID the answer is for the card as read (its revision goes with it); with an ID and `--revision` the
    /// board judges that revision, and an ID alone sends none.
    @Test func theRevisionGoesWithTheAnswer() throws {
        let board = FakeBoard()
        board.start("chat_1", canStop: true)
        let shown = try #require(board.tasks["chat_1"]?.revision)
        #expect(run(board, .stop).status == 0)
        #expect(board.answerRevisions == [shown])
        board.handoff(step: "Deploy to production?")
        let stale = PhoneAnswerCommand.answer(
            .done, requestID: "chat_1", revision: shown, phoneID: "p1", answerID: "ans-2", perform: board.answer)
        #expect(stale.status == 1)
        #expect(stale.line.contains("the task changed since it was shown"))
        #expect(run(board, .done, "chat_1").status == 0)
        #expect(board.answerRevisions == [shown, shown, nil])
    }

    @Test func aNamedTaskIsAnsweredWithoutReadingTheCard() {
        let board = FakeBoard()
        board.start("chat_1")
        board.handoff(step: "Enter the password")
        board.start("chat_2")
        let result = run(board, .done, "chat_1")
        #expect(result == .init(line: "Answered done for “Open Settings” (chat_1)", status: 0))
        #expect(board.currentRequests == 0)
    }

    @Test func theBoardsRefusalIsPrintedWithStatusOne() {
        let board = FakeBoard()
        board.start("chat_1")
        #expect(
            run(board, .refuse)
                == .init(
                    line: "Could not refuse “Open Settings” (chat_1): board answered HTTP 409: not_waiting: "
                        + "the task is not waiting for the person", status: 1))
        // Another phone's task does not exist for this one.
        board.start("theirs", phoneID: "p2", canStop: true)
        #expect(run(board, .stop, "theirs").status == 1)
        #expect(run(board, .stop, "theirs").line.contains("404: not_found"))
    }

    @Test func noCurrentTaskAndNoBoard() {
        let board = FakeBoard()
        #expect(run(board, .dismiss) == .init(line: "aiden-phone: no current task for phone p1 to dismiss", status: 3))
        board.mode = .unreachable("127.0.0.1:8080: refused")
        #expect(run(board, .dismiss).status == 69)
        #expect(run(board, .stop, "chat_1").status == 69)
        // Three attempts, each with the same answer id.
        let sent = board.requests.compactMap { if case let .answer(_, _, id, _, _) = $0 { id } else { nil } }
        #expect(sent == ["ans-1", "ans-1", "ans-1"])
    }

    @Test func aLostReplyIsRetriedAndRecordedOnce() {
        let board = FakeBoard()
        board.start("chat_1")
        board.end("completed")
        board.failAnswers = 1
        board.recordBeforeFailing = true
        #expect(run(board, .dismiss, "chat_1").status == 0)
        #expect(board.answers.count == 1)
    }
}
