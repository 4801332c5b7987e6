import Glibc
import PhoneCore
import PhoneTestSupport
import Platform
import Testing
import WireFormat

@testable import PhoneService

/// `aiden-phone stop|done|refuse|dismiss [ID]` against the fake board, which answers the endpoint as
/// docs/protocol.md §3.8 has it: the line printed and the exit status for each case. Without an ID the task is the
/// one a running client's status socket (a real `StatusSocket` on a socket of the test's own) says its card shows.
@Suite(.serialized) struct PhoneAnswerCommandTests {
    private func run(
        _ board: FakeBoard, _ answer: Answer, _ id: String, revision: UInt64? = nil, phoneID: String = "p1",
        answerID: String = "ans-1"
    ) -> PhoneAnswerCommand.Result {
        PhoneAnswerCommand.answer(
            answer, task: ShownTask(requestID: id, revision: revision, title: nil), phoneID: phoneID,
            answerID: answerID, perform: board.answer)
    }

    /// The card a client shows of the fake board's task `id` as it is now (a handoff when it waits).
    private static func card(_ board: FakeBoard, _ id: String) throws -> Card {
        let task = try #require(board.tasks[id])
        let waiting = task.fields["phase"] as? String == "waiting_user"
        let snapshot = SnapshotView(
            requestID: id, status: .known(.running), phase: .known(waiting ? .waitingUser : .planning),
            taskTitle: task.fields["task_title"] as? String, currentStep: task.fields["current_step"] as? String,
            currentAction: waiting ? Handoff.requestUserInputAction : nil,
            canStop: task.fields["can_stop"] as? Bool, revision: task.revision)
        return Card(
            state: CardState(snapshot: snapshot), snapshot: snapshot,
            link: LinkState(usb: .unmonitored, wake: .connected))
    }

    /// A running client's status socket in a directory of the test's own; `stop()` takes both away.
    private final class RunningClient {
        let socket = StatusSocket(
            runtime: SerialRuntime(label: "test.answer"), logger: Logger(component: "test", entries: { _ in }))
        let directory: String
        var path: String { directory + "/aiden-phone/status.sock" }

        init() throws {
            var template = Array("/tmp/aiden-answer-XXXXXX".utf8CString)
            directory = try #require(mkdtemp(&template).map { String(cString: $0) })
            socket.start(path: path)
        }

        func stop() {
            socket.stop()
            rmdir(directory + "/aiden-phone")
            rmdir(directory)
        }
    }

    /// The desktop entry's actions name no task: the answer is for the one the client shows, at the revision it
    /// shows. A newer prompt on the board than the one shown makes it refused (`stale_revision`, nothing
    /// recorded); once the client shows the newer one, the same action is taken.
    @Test func anAnswerWithoutAnIDAnswersTheCardTheClientShows() throws {
        let board = FakeBoard()
        board.start("chat_1", canStop: true)
        board.handoff(step: "Deploy to staging?")
        let client = try RunningClient()
        defer { client.stop() }
        let seen = try Self.card(board, "chat_1")
        client.socket.show([seen], current: seen, alerts: [])
        board.update(["phase": "acting", "current_action": "tap"])
        board.handoff(step: "Deploy to production?")

        let shown = PhoneAnswerCommand.shown(by: client.path, answer: .done)
        #expect(
            shown == .task(ShownTask(requestID: "chat_1", revision: seen.snapshot?.revision, title: "Open Settings")))
        guard case let .task(task) = shown else { return }
        let stale = PhoneAnswerCommand.answer(
            .done, task: task, phoneID: "p1", answerID: "ans-1", perform: board.answer)
        #expect(stale.status == PhoneAnswerCommand.ExitStatus.refused)
        #expect(
            stale.line
                == "Done not taken for “Open Settings” (chat_1): the task changed since it was shown; look at the "
                + "card again")
        #expect(board.answers.isEmpty)
        #expect(board.currentRequests == 0, "the board's current revision is never what an answer is for")

        let now = try Self.card(board, "chat_1")
        client.socket.show([now], current: now, alerts: [])
        guard case let .task(newer) = PhoneAnswerCommand.shown(by: client.path, answer: .done) else {
            Issue.record("no task shown")
            return
        }
        let taken = PhoneAnswerCommand.answer(
            .done, task: newer, phoneID: "p1", answerID: "ans-2", perform: board.answer)
        #expect(taken == .init(line: "Answered done for “Open Settings” (chat_1)", status: 0))
        #expect(board.answerRevisions == [seen.snapshot?.revision, now.snapshot?.revision])
    }

    /// No running client (no socket there, or no runtime directory at all): one line that says so, exit 69, and
    /// nothing posted; a client whose card shows no task: exit 3.
    @Test func withoutAnIDAndNoClientNothingIsAnswered() throws {
        let missing = PhoneAnswerCommand.shown(by: "/tmp/aiden-answer-none-\(getpid())/status.sock", answer: .stop)
        guard case let .ended(result) = missing else {
            Issue.record("a task without a client: \(missing)")
            return
        }
        #expect(result.status == 69)
        #expect(result.line.hasPrefix("aiden-phone: stop: no aiden-phone answers at /tmp/aiden-answer-none-"))
        #expect(
            result.line.hasSuffix(
                "start it (systemctl --user start aiden-phone), or name the task: aiden-phone stop ID"))
        #expect(!result.line.contains("\n"))
        guard case let .ended(noRuntime) = PhoneAnswerCommand.shown(by: nil, answer: .done) else { return }
        #expect(noRuntime.status == 69)
        #expect(noRuntime.line.contains("no running aiden-phone to ask which task its card shows"))

        let client = try RunningClient()
        defer { client.stop() }
        let standby = Card(state: .standby, link: LinkState(usb: .unmonitored, wake: .connected))
        client.socket.show([], current: standby, alerts: [])
        #expect(
            PhoneAnswerCommand.shown(by: client.path, answer: .dismiss)
                == .ended(.init(line: "aiden-phone: dismiss: the card shows no task", status: 3)))
    }

    /// With an ID and `--revision` the board judges that revision; an ID alone sends none.
    @Test func theRevisionGoesWithTheAnswer() throws {
        let board = FakeBoard()
        board.start("chat_1", canStop: true)
        let shown = try #require(board.tasks["chat_1"]?.revision)
        #expect(run(board, .stop, "chat_1", revision: shown).status == 0)
        #expect(board.answerRevisions == [shown])
        board.handoff(step: "Deploy to production?")
        let stale = run(board, .done, "chat_1", revision: shown, answerID: "ans-2")
        #expect(stale.status == 1)
        #expect(stale.line.contains("the task changed since it was shown"))
        #expect(run(board, .done, "chat_1", answerID: "ans-3").status == 0)
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
            run(board, .refuse, "chat_1")
                == .init(
                    line: "Could not refuse task (chat_1): board answered HTTP 409: not_waiting: "
                        + "the task is not waiting for the person", status: 1))
        // Another phone's task does not exist for this one.
        board.start("theirs", phoneID: "p2", canStop: true)
        #expect(run(board, .stop, "theirs").status == 1)
        #expect(run(board, .stop, "theirs").line.contains("404: not_found"))
    }

    @Test func noBoard() {
        let board = FakeBoard()
        board.mode = .unreachable("127.0.0.1:8080: refused")
        let result = run(board, .stop, "chat_1")
        #expect(result.status == 69)
        #expect(result.line == "Could not stop task (chat_1): board unreachable: 127.0.0.1:8080: refused")
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
