import PhoneTestSupport
import Testing
import WireFormat

@testable import PhoneCore

/// The person's answers through the session against the fake board (which answers the endpoint as
/// docs/protocol.md §3.8 has it): one request per press, retried with the same `answer_id`, one `answer`
/// event, a fetch after a recorded answer.
@Suite struct PhoneSessionAnswerTests {
    private func outcomes(_ driver: SessionDriver) -> [AnswerOutcome] {
        driver.events.compactMap { if case let .answered(outcome) = $0 { outcome } else { nil } }
    }

    @Test func aStopIsPostedOnceAndTheCardShowsIt() {
        let board = FakeBoard()
        board.start("chat_1", canStop: true)
        var driver = SessionDriver(board: board)
        driver.send(.started)
        #expect(Answer.available(on: driver.lastCard!) == [.stop])
        driver.clearEffects()
        let fetches = board.currentRequests
        driver.send(.personAnswered(.stop, requestID: "chat_1", answerID: "ans-1"))
        #expect(
            board.answers.map { "\($0.requestID) \($0.answer) \($0.answerID) \($0.phoneID)" } == [
                "chat_1 stop ans-1 p1"
            ])
        #expect(outcomes(driver).map(\.line) == ["Stop requested for “Open Settings” (chat_1)"])
        #expect(board.currentRequests == fetches + 1)  // fetched after the answer
        #expect(driver.lastCard?.recordedAnswer?.answer == "stop")
        #expect(Answer.available(on: driver.lastCard!) == [])
        #expect(driver.alerts.isEmpty)  // stop_requested never alerts
    }

    /// What a stop causes comes inside the Wake coalescing window its own Wake opened: the agent ends the task
    /// 300 ms after the answer and the board's Wake for it waits till 750 ms. The session follows the answer with
    /// fetches every 100 ms, so the card shows the end at the first one after it, with no Wake at all; after 1 s it
    /// is back to the safety fetch.
    @Test func aRecordedStopIsFollowedUntilTheWakeWouldHaveCome() throws {
        let board = FakeBoard()
        board.start("chat_1", canStop: true)
        var driver = SessionDriver(board: board)
        driver.send(.started)
        driver.advance(to: .seconds(10))
        driver.send(.personAnswered(.stop, requestID: "chat_1", answerID: "ans-1"))
        #expect(driver.session.nextDeadline == .milliseconds(10_100))
        driver.fireDeadline()
        driver.fireDeadline()
        #expect(driver.lastCard?.state == .running)
        driver.advance(to: .milliseconds(10_300))
        board.end("canceled")
        driver.fireDeadline()  // the fetch at 10.3 s
        #expect(driver.now == .milliseconds(10_300))
        #expect(driver.lastCard?.state == .canceled)
        var follows = 0
        while let due = driver.session.nextDeadline, due <= .milliseconds(11_000) {
            driver.fireDeadline()
            follows += 1
        }
        #expect(follows == 7)  // 10.4 … 11.0 s
        #expect(driver.session.nextDeadline == .milliseconds(71_000))
    }

    /// `aiden-phone stop` (a desktop entry's or a lock screen's action) posted the answer itself and says so: the
    /// session fetches at once and follows it as one of its own.
    @Test func anAnswerRecordedElsewhereIsFollowed() throws {
        let board = FakeBoard()
        board.start("chat_1", canStop: true)
        var driver = SessionDriver(board: board)
        driver.send(.answerRecordedElsewhere)  // before the start: nothing to follow yet
        #expect(board.currentRequests == 0)
        driver.send(.started)
        driver.advance(to: .seconds(10))
        let fetches = board.currentRequests
        driver.send(.answerRecordedElsewhere)
        #expect(board.currentRequests == fetches + 1)
        #expect(driver.session.nextDeadline == .milliseconds(10_100))
    }

    /// A dismissal causes nothing on the board: one fetch, then the safety fetch.
    @Test func aDismissalIsNotFollowed() throws {
        let board = FakeBoard()
        board.start("chat_1", canStop: true)
        board.end("completed")
        var driver = SessionDriver(board: board)
        driver.send(.started)
        driver.advance(to: .seconds(10))
        let fetches = board.currentRequests
        driver.send(.personAnswered(.dismiss, requestID: "chat_1", answerID: "ans-1"))
        #expect(board.currentRequests == fetches + 1)
        #expect(driver.session.nextDeadline == .seconds(70))
    }

    /// An answer given on an older card: the board says `stale_revision`, the line says so, nothing is recorded, and
    /// the session reads the task again so every surface draws it as it is.
    @Test func aStaleAnswerIsSaidAndTheCardIsReadAgain() throws {
        let board = FakeBoard()
        board.start("chat_1", canStop: true)
        var driver = SessionDriver(board: board)
        driver.send(.started)
        let shown = try #require(driver.lastCard?.snapshot?.revision)
        board.handoff(step: "Deploy to production?")
        let fetches = board.currentRequests
        driver.send(.personAnswered(.stop, requestID: "chat_1", answerID: "ans-1", revision: shown))
        #expect(board.answerRevisions == [shown])
        #expect(board.answers.isEmpty)
        #expect(
            outcomes(driver).map(\.line) == [
                "Stop not taken for “Open Settings” (chat_1): the task changed since it was shown; look at the card again"
            ])
        #expect(outcomes(driver).map(\.isStale) == [true])
        #expect(board.currentRequests == fetches + 1)
        #expect(driver.lastCard?.state == .handoff)
        let now = try #require(driver.lastCard?.snapshot?.revision)
        driver.send(.personAnswered(.done, requestID: "chat_1", answerID: "ans-2", revision: now))
        #expect(board.answers.map(\.answerID) == ["ans-2"])
    }

    @Test func aLostReplyIsRetriedWithTheSameAnswerIDAndRecordedOnce() {
        let board = FakeBoard()
        board.start("chat_1")
        board.handoff(step: "Enter the password")
        board.failAnswers = 2
        board.recordBeforeFailing = true
        var driver = SessionDriver(board: board)
        driver.send(.started)
        driver.send(.personAnswered(.done, requestID: "chat_1", answerID: "ans-9"))
        let sent = board.requests.compactMap { if case let .answer(_, _, id, _, _) = $0 { id } else { nil } }
        #expect(sent == ["ans-9", "ans-9", "ans-9"])
        #expect(board.answers.count == 1)
        #expect(outcomes(driver).map(\.succeeded) == [true])
    }

    @Test func noAnswerAtAllGivesUpAfterTheAttemptsAndSaysSo() {
        let board = FakeBoard()
        board.start("chat_1", canStop: true)
        board.failAnswers = 10
        var driver = SessionDriver(board: board)
        driver.send(.started)
        driver.send(.personAnswered(.stop, requestID: "chat_1", answerID: "ans-1"))
        #expect(board.requests.filter { if case .answer = $0 { true } else { false } }.count == 3)
        #expect(
            outcomes(driver).map(\.line) == [
                "Could not stop “Open Settings” (chat_1): board unreachable: connection reset by peer"
            ])
    }

    @Test func theBoardsRefusalIsTheOutcome() {
        let board = FakeBoard()
        board.start("chat_1")  // can_stop false
        var driver = SessionDriver(board: board)
        driver.send(.started)
        driver.send(.personAnswered(.stop, requestID: "chat_1", answerID: "ans-1"))
        driver.send(.personAnswered(.dismiss, requestID: "chat_1", answerID: "ans-2"))
        #expect(
            outcomes(driver).map(\.line) == [
                "Could not stop “Open Settings” (chat_1): board answered HTTP 409: not_stoppable: the task cannot be stopped",
                "Could not dismiss “Open Settings” (chat_1): board answered HTTP 409: not_ended: the task has not ended",
            ])
        #expect(board.answers.isEmpty)
    }

    @Test func theSamePressTwiceWhileInFlightIsOneRequest() {
        let board = FakeBoard()
        board.start("chat_1", canStop: true)
        var driver = SessionDriver(board: board)
        driver.send(.started)
        driver.holdRequests = true
        driver.send(.personAnswered(.stop, requestID: "chat_1", answerID: "ans-1"))
        driver.send(.personAnswered(.stop, requestID: "chat_1", answerID: "ans-1"))
        #expect(driver.held.count == 1)
    }
}
