import AgentCLI
import FoundationEssentials
import Testing
import WireFormat

/// `task wait`'s decisions: on the task as it is, then on each event of the ring; and how the new transitions
/// print in `events`.
@Suite struct TaskWaitTests {
    static func event(_ transition: String, id: String = "chat_1", answer: String? = nil) -> JSONValue {
        var members: [String: JSONValue] = [
            "id": .number("7"), "request_id": .string(id), "transition": .string(transition),
            "at": .string("2026-06-12T07:00:05Z"),
        ]
        if let answer { members["answer"] = .string(answer) }
        return .object(members)
    }

    static func task(status: String = "running", answer: String? = nil, phone: String? = "phone-1") -> SnapshotView {
        var view = SnapshotView(requestID: "chat_1", status: OpenEnum(rawValue: status))
        if status != "running" { view.endedAt = "2026-06-12T07:00:09Z" }
        if let answer {
            view.answer = AnswerView(
                answer: OpenEnum(rawValue: answer), answerID: "ans-1", phoneID: phone,
                answeredAt: "2026-06-12T07:00:04Z")
        }
        return view
    }

    /// (target, the task as it is, what the first check decides)
    static let atOnce: [(WaitTarget, SnapshotView, TaskWait.Decision?)] = [
        (.stop, task(), nil),
        (
            .stop, task(answer: "stop"),
            .came(
                line: "stop requested from phone phone-1",
                event: .object([
                    "request_id": .string("chat_1"), "transition": .string("stop_requested"),
                    "at": .string("2026-06-12T07:00:04Z"),
                ]))
        ),
        (.stop, task(answer: "done"), nil),
        (.stop, task(status: "completed"), .endedFirst(status: "completed")),
        (.answer, task(answer: "stop"), nil),
        (
            .answer, task(answer: "refuse"),
            .came(
                line: "answered refuse",
                event: .object([
                    "request_id": .string("chat_1"), "transition": .string("answered"), "answer": .string("refuse"),
                    "at": .string("2026-06-12T07:00:04Z"),
                ]))
        ),
        (.answer, task(status: "failed"), .endedFirst(status: "failed")),
        (.end, task(answer: "stop"), nil),
        (
            .end, task(status: "canceled"),
            .came(
                line: "ended canceled",
                event: .object([
                    "request_id": .string("chat_1"), "transition": .string("canceled"),
                    "at": .string("2026-06-12T07:00:09Z"),
                ]))
        ),
    ]

    @Test(arguments: atOnce.indices)
    func anAnswerAlreadyRecordedCountsAtOnce(row: Int) {
        let (target, task, expected) = Self.atOnce[row]
        #expect(TaskWait(requestID: "chat_1", target: target).check(task: task) == expected)
    }

    /// (target, the board's outcome, the task in its answer, the line; nil: ask again; "ended:S": the task ended
    /// first)
    static let onAnswers: [(WaitTarget, WaitOutcome, SnapshotView, String?)] = [
        (.stop, .came, task(answer: "stop"), "stop requested from phone phone-1"),
        (.stop, .came, task(answer: "stop", phone: ""), "stop requested from the phone"),
        (.stop, .timeout, task(), nil),
        (.stop, .ended, task(status: "canceled"), "ended:canceled"),
        (.answer, .came, task(answer: "done"), "answered done"),
        (.answer, .came, task(answer: "refuse"), "answered refuse"),
        (.answer, .timeout, task(answer: "stop"), nil),
        (.answer, .ended, task(status: "completed"), "ended:completed"),
        (.end, .came, task(status: "failed"), "ended failed"),
        (.end, .timeout, task(), nil),
        // Recorded before the end cleared it from the task: the board read its ring, and decides.
        (.stop, .came, task(status: "canceled"), "stop requested from the phone"),
        (.answer, .came, task(status: "completed"), "answered before the task ended"),
    ]

    @Test(arguments: onAnswers.indices)
    func theBoardsAnswerDecides(row: Int) {
        let (target, outcome, task, expected) = Self.onAnswers[row]
        switch TaskWait(requestID: "chat_1", target: target).decision(outcome, task: task) {
        case nil: #expect(expected == nil)
        case let .came(line, _)?: #expect(line == expected)
        case let .endedFirst(status)?: #expect("ended:\(status)" == expected)
        }
    }

    @Test func theWaitIsAskedOfTheBoardAndHeldAtMostAMinute() {
        let wait = TaskWait(requestID: "chat 1", target: .answer)
        let request = wait.request(holdingFor: 25)
        #expect(request.method == "GET")
        #expect(request.path == "/v1/tasks/chat%201/wait?for=answer&timeout=25")
        #expect(request.holdSeconds == 25, "the transport waits that much longer")
        #expect(wait.request(holdingFor: 600).path.hasSuffix("timeout=60"))
        #expect(wait.request(holdingFor: -3).path.hasSuffix("timeout=0"))
        #expect(EventsCursor(since: 4).request(waitingFor: 30).path == "/v1/events?since=4&wait=30")
        #expect(EventsCursor(since: 4).request.path == "/v1/events?since=4", "no wait: an ordinary read")
    }

    @Test func theOutputIsOneLineOrTheEventAsJSON() {
        let event = Self.event("answered", answer: "done")
        #expect(TaskWait.output("answered done", event: event, json: false) == "answered done\n")
        #expect(
            TaskWait.output("answered done", event: event, json: true)
                == #"{"answer":"done","at":"2026-06-12T07:00:05Z","id":7,"request_id":"chat_1","transition":"answered"}"#
                + "\n")
    }

    @Test func failuresHaveTheirExitStatusAndCode() {
        let timedOut = CLIFailure.waitTimedOut(requestID: "chat_1", target: .stop, seconds: 30)
        #expect(timedOut.exitCode == .timedOut)
        #expect(ExitCode.timedOut.rawValue == 75)
        #expect(timedOut.line == "aidenctl: gave up waiting for a stop request of task chat_1 after 30 s")
        let ended = CLIFailure.endedBeforeWait(requestID: "chat_1", status: "completed", target: .answer)
        #expect(ended.exitCode == .failure)
        #expect(ended.line == "aidenctl: task chat_1 ended (completed) before an answer")
        let outcome = CLIOutcome(failure: ended, json: true)
        #expect(outcome.standardOutput.contains(#""code":"task_ended""#))
    }

    @Test func aBoardThatIsStoppingIsAskedAgainLikeOneThatIsAway() {
        let stopping = WireError(code: "unavailable", message: "the server is stopping")
        #expect(CLIFailure.daemon(status: 503, error: stopping, request: "GET /v1/events").boardIsAway)
        #expect(CLIFailure.transport(.unreachable("no such file"), socketPath: "/s").boardIsAway)
        let failedWrite = WireError(code: "storage_failed", message: "nothing was changed")
        #expect(!CLIFailure.daemon(status: 503, error: failedWrite, request: "POST /v1/tasks").boardIsAway)
        #expect(!CLIFailure.daemon(status: 404, error: nil, request: "GET /v1/tasks/x/wait").boardIsAway)
    }

    @Test func eventsPrintTheNewTransitionsAndAnAnswer() {
        #expect(
            OutputFormatter.event(Self.event("answered", answer: "refuse"))
                == "2026-06-12T07:00:05Z  answered             chat_1  refuse\n")
        #expect(
            OutputFormatter.event(Self.event("stop_requested"))
                == "2026-06-12T07:00:05Z  stop_requested       chat_1\n")
    }

    @Test func taskShowPrintsTheAnswerAndTheDismissal() {
        var view = Self.task(status: "canceled", answer: "stop")
        view.dismissedAt = "2026-06-12T07:00:10Z"
        let text = OutputFormatter.snapshot(view)
        // In the snapshot's key order: the dismissal beside the end, the answer last.
        #expect(
            text.hasSuffix(
                "dismissed_at: 2026-06-12T07:00:10Z\nanswer: stop from phone phone-1 at 2026-06-12T07:00:04Z (ans-1)\n")
        )
    }
}

/// `AgentCLI.perform` of `task wait`: the first check only, on the task as the daemon answers it.
@Suite struct TaskWaitFirstCheckTests {
    struct OneAnswer: AgentTransport {
        let body: String
        func send(_ request: AgentRequest, socketPath: String) -> Result<AgentResponse, TransportFailure> {
            .success(AgentResponse(status: 200, body: Array(body.utf8)))
        }
    }

    @Test func aRecordedStopIsPrintedAtOnce() {
        let body =
            #"{"status":"ok","for":"stop","outcome":"came","live_activity":{"request_id":"chat_1","status":"running","#
            + #""answer":{"answer":"stop","answer_id":"a","phone_id":"p1","answered_at":"2026-06-12T07:00:04Z"}}}"#
        let outcome = AgentCLI.run(
            arguments: ["task", "wait", "chat_1", "--for", "stop"], environment: [:], idempotencyKey: "k",
            version: "t", transport: OneAnswer(body: body))
        #expect(outcome == CLIOutcome(standardOutput: "stop requested from phone p1\n", exitCode: .ok))
    }

    @Test func aTimeoutPrintsNothingAndAnAnswerThatIsNotAWaitsIsRefused() {
        let timeout = #"{"status":"ok","for":"stop","outcome":"timeout","live_activity":{"request_id":"chat_1"}}"#
        let waited = AgentCLI.run(
            arguments: ["task", "wait", "chat_1", "--for", "stop"], environment: [:], idempotencyKey: "k",
            version: "t", transport: OneAnswer(body: timeout))
        #expect(waited == CLIOutcome(exitCode: .ok))
        let show = #"{"status":"ok","live_activity":{"request_id":"chat_1"}}"#
        let refused = AgentCLI.run(
            arguments: ["task", "wait", "chat_1", "--for", "stop"], environment: [:], idempotencyKey: "k",
            version: "t", transport: OneAnswer(body: show))
        #expect(refused.exitCode == .failure)
        #expect(refused.standardError.contains("no outcome and live_activity in the answer"))
    }
}
