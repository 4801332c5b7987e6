import Testing

@testable import AgentCLI

/// Answers from a script, one per request, and records what it was asked.
final class ScriptedTransport: AgentTransport {
    private(set) var sent: [(request: AgentRequest, socketPath: String)] = []
    private var script: [Result<AgentResponse, TransportFailure>]

    init(_ script: [Result<AgentResponse, TransportFailure>]) {
        self.script = script
    }

    convenience init(status: Int, body: String) {
        self.init([.success(AgentResponse(status: status, body: Array(body.utf8)))])
    }

    func send(_ request: AgentRequest, socketPath: String) -> Result<AgentResponse, TransportFailure> {
        sent.append((request, socketPath))
        return script.isEmpty ? .failure(.other("script exhausted")) : script.removeFirst()
    }
}

@Suite("aidenctl end to end in memory: argv → request → output and exit status")
struct AgentCLIRunTests {
    static let snapshotAnswer = #"""
        {"status":"ok","live_activity":{"request_id":"chat_ab12","phone_id":"","status":"running",
        "phase":"planning","task_title":"Open Settings","progress":0,"revision":1}}
        """#
    static let snapshotAnswerOneLine =
        #"{"status":"ok","live_activity":{"request_id":"chat_ab12","phone_id":"","#
        + #""status":"running","phase":"planning","task_title":"Open Settings","progress":0,"revision":1}}"#

    private func run(
        _ arguments: [String], _ transport: ScriptedTransport,
        environment: [String: String] = [:]
    ) -> CLIOutcome {
        AgentCLI.run(
            arguments: arguments, environment: environment, idempotencyKey: "key-1", version: "9.8.7",
            transport: transport)
    }

    @Test func startPrintsASummaryThenTheID() {
        let transport = ScriptedTransport(status: 201, body: Self.snapshotAnswer)
        let outcome = run(["task", "start", "--title", "Open Settings"], transport)
        #expect(
            outcome
                == CLIOutcome(
                    standardOutput:
                        "started task \"Open Settings\" (status running, phase planning, progress 0%, revision 1)\n"
                        + "chat_ab12\n",
                    exitCode: .ok))
        #expect(transport.sent.count == 1)
        #expect(transport.sent.first?.socketPath == "/run/aiden/agent.sock")
        #expect(transport.sent.first?.request.header("Idempotency-Key") == "key-1")
    }

    @Test func startWithJSONPrintsOneObjectHoldingTheRequestID() {
        let outcome = run(
            ["--json", "task", "start", "--title", "Open Settings"],
            ScriptedTransport(status: 201, body: Self.snapshotAnswer))
        #expect(
            outcome
                == CLIOutcome(
                    standardOutput: #"{"request_id":"chat_ab12","# + Self.snapshotAnswerOneLine.dropFirst() + "\n",
                    exitCode: .ok))
    }

    @Test func startWithJSONKeepsADaemonsOwnTopLevelRequestID() {
        let body = #"{"request_id":"chat_ab12","status":"ok","live_activity":{"request_id":"chat_ab12"}}"#
        let outcome = run(["task", "start", "--title", "T", "--json"], ScriptedTransport(status: 201, body: body))
        #expect(outcome.standardOutput == body + "\n")
    }

    @Test func updateEndAndShowPrintTheSnapshot() {
        let expected = """
            request_id: chat_ab12
            status: running
            phase: planning
            task_title: Open Settings
            progress: 0 (0%)
            revision: 1

            """
        for arguments in [
            ["task", "update", "--id", "chat_ab12", "--progress", "0"],
            ["task", "end", "--id", "chat_ab12", "--status", "completed"],
            ["task", "heartbeat", "chat_ab12"],
            ["task", "show", "chat_ab12"],
        ] {
            let outcome = run(arguments, ScriptedTransport(status: 200, body: Self.snapshotAnswer))
            #expect(outcome == CLIOutcome(standardOutput: expected, exitCode: .ok), "\(arguments)")
            let json = run(arguments + ["--json"], ScriptedTransport(status: 200, body: Self.snapshotAnswer))
            #expect(json == CLIOutcome(standardOutput: Self.snapshotAnswerOneLine + "\n", exitCode: .ok))
        }
    }

    @Test func listAndStatus() {
        let list =
            #"{"status":"ok","tasks":[{"request_id":"chat_1","status":"running","phase":"acting","#
            + #""task_title":"A","progress":0.5}]}"#
        #expect(
            run(["task", "list"], ScriptedTransport(status: 200, body: list)).standardOutput == """
                ID      STATUS   PHASE   PROGRESS  TITLE
                chat_1  running  acting  50%       A

                """)
        #expect(
            run(["task", "list", "--json"], ScriptedTransport(status: 200, body: list)).standardOutput
                == list + "\n")
        let status = #"{"status":"ok","version":"0.1.0","wake":{"seq":5}}"#
        #expect(
            run(["status"], ScriptedTransport(status: 200, body: status))
                == CLIOutcome(standardOutput: "version: 0.1.0\nwake.seq: 5\n", exitCode: .ok))
    }

    @Test func theSocketComesFromTheOptionOrTheEnvironment() {
        let transport = ScriptedTransport(status: 200, body: #"{"status":"ok"}"#)
        _ = run(["status"], transport, environment: ["AIDEN_AGENT_SOCKET": "/env.sock"])
        _ = run(["status", "--socket", "/opt.sock"], transport, environment: ["AIDEN_AGENT_SOCKET": "/env.sock"])
        #expect(transport.sent.map(\.socketPath) == ["/env.sock", "/opt.sock"])
    }

    static let daemonErrors: [(Int, String, String, ExitCode)] = [
        (
            409, #"{"status":"error","error":{"code":"conflict","message":"task chat_ab12 has ended"}}"#,
            "aidenctl: conflict: task chat_ab12 has ended (409)", .failure
        ),
        (
            409,
            #"{"status":"error","error":{"code":"stale_revision","message":"revision is 43, not 42","#
                + #""field":"expected_revision"}}"#,
            "aidenctl: stale_revision: revision is 43, not 42 (field expected_revision, 409)", .failure
        ),
        (
            400,
            #"{"status":"error","error":{"code":"invalid_field","message":"progress must be in 0…1","#
                + #""field":"progress"}}"#,
            "aidenctl: invalid_field: progress must be in 0…1 (field progress, 400)", .dataError
        ),
        (
            413,
            #"{"status":"error","error":{"code":"payload_too_large","message":"request body exceeds 16384 bytes"}}"#,
            "aidenctl: payload_too_large: request body exceeds 16384 bytes (413)", .dataError
        ),
        (
            404, #"{"status":"not_found"}"#,
            "aidenctl: aiden-board answered 404 Not Found to PATCH /v1/tasks/chat_ab12",
            .failure
        ),
        (
            500, "internal error\n",
            "aidenctl: aiden-board answered 500 Internal Server Error to PATCH /v1/tasks/chat_ab12", .failure
        ),
        (
            503, #"{"status":"error","error":{"message":"shutting down"}}"#, "aidenctl: error: shutting down (503)",
            .failure
        ),
    ]

    @Test(arguments: daemonErrors)
    func daemonErrorsAreOneLineAndAnExitStatus(status: Int, body: String, line: String, exitCode: ExitCode) {
        let arguments = ["task", "update", "--id", "chat_ab12", "--step", "s"]
        let outcome = run(arguments, ScriptedTransport(status: status, body: body))
        #expect(outcome == CLIOutcome(standardError: line + "\n", exitCode: exitCode))
        let json = run(arguments + ["--json"], ScriptedTransport(status: status, body: body))
        #expect(json.standardError == line + "\n")
        #expect(json.exitCode == exitCode)
        if body.hasPrefix("{") {
            #expect(json.standardOutput == body + "\n")
        } else {
            #expect(
                json.standardOutput == #"{"status":"error","error":{"code":"http_500","message":"# + "\""
                    + line.dropFirst("aidenctl: ".count) + "\"}}\n")
        }
    }

    static let transportFailures: [(TransportFailure, String, ExitCode)] = [
        (
            .unreachable("connection refused"),
            "aidenctl: cannot reach aiden-board at /run/aiden/agent.sock: connection refused (is the daemon running?)",
            .unavailable
        ),
        (
            .unreachable("no such file or directory"),
            "aidenctl: cannot reach aiden-board at /run/aiden/agent.sock: no such file or directory "
                + "(is the daemon running?)", .unavailable
        ),
        (
            .unreachable("permission denied"),
            "aidenctl: cannot reach aiden-board at /run/aiden/agent.sock: permission denied "
                + "(is your user in the socket's group, e.g. aiden?)", .unavailable
        ),
        (
            .unreachable("Unix socket path too long: '/x'"),
            "aidenctl: cannot reach aiden-board at /run/aiden/agent.sock: Unix socket path too long: '/x'", .unavailable
        ),
        (
            .timedOut, "aidenctl: no answer from aiden-board at /run/aiden/agent.sock in time (is it stuck?)",
            .unavailable
        ),
        (
            .connectionLost("Empty reply from server"),
            "aidenctl: aiden-board at /run/aiden/agent.sock closed the connection before answering: "
                + "Empty reply from server", .unavailable
        ),
        (
            .other("response body exceeds 1048576 bytes"),
            "aidenctl: talking to aiden-board at /run/aiden/agent.sock failed: response body exceeds 1048576 bytes",
            .failure
        ),
    ]

    @Test(arguments: transportFailures)
    func transportFailuresAreOneLineAndAnExitStatus(failure: TransportFailure, line: String, exitCode: ExitCode) {
        // A lost connection is tried once more: the same failure both times.
        let transport = ScriptedTransport([.failure(failure), .failure(failure)])
        let outcome = run(["task", "update", "--id", "r", "--step", "s"], transport)
        #expect(outcome == CLIOutcome(standardError: line + "\n", exitCode: exitCode))
    }

    @Test func withJSONAFailureStillPrintsOneObject() {
        let outcome = run(["--json", "status"], ScriptedTransport([.failure(.unreachable("connection refused"))]))
        #expect(
            outcome.standardOutput == #"{"status":"error","error":{"code":"unreachable","message":"#
                + #""cannot reach aiden-board at /run/aiden/agent.sock: connection refused (is the daemon running?)"}}"#
                + "\n")
        #expect(outcome.exitCode == .unavailable)
    }

    @Test func aStartIsRetriedOnceWithTheSameKeyAfterALostConnection() {
        let transport = ScriptedTransport([
            .failure(.connectionLost("Connection reset by peer")),
            .success(AgentResponse(status: 201, body: Array(Self.snapshotAnswer.utf8))),
        ])
        let outcome = run(["task", "start", "--title", "Open Settings"], transport)
        #expect(outcome.exitCode == .ok)
        #expect(outcome.standardOutput.hasSuffix("\nchat_ab12\n"))
        #expect(transport.sent.count == 2)
        #expect(transport.sent[0].request == transport.sent[1].request)
        #expect(transport.sent[1].request.header("Idempotency-Key") == "key-1")
    }

    @Test func aStartIsRetriedOnlyOnce() {
        let transport = ScriptedTransport([
            .failure(.connectionLost("reset")), .failure(.connectionLost("reset")),
            .success(AgentResponse(status: 201, body: Array(Self.snapshotAnswer.utf8))),
        ])
        let outcome = run(["task", "start", "--title", "T"], transport)
        #expect(outcome.exitCode == .unavailable)
        #expect(transport.sent.count == 2)
    }

    @Test func writesAreRetriedOnceWithTheirKeyAndOtherFailuresNotAtAll() {
        let answer = Result<AgentResponse, TransportFailure>.success(
            AgentResponse(status: 200, body: Array(Self.snapshotAnswer.utf8)))
        for arguments in [
            ["task", "update", "r", "--step", "s"], ["task", "end", "r", "--status", "completed"],
            ["task", "update", "r", "--step", "s", "--idempotency-key", "mine"],
        ] {
            let transport = ScriptedTransport([.failure(.connectionLost("reset")), answer])
            #expect(run(arguments, transport).exitCode == .ok, "\(arguments)")
            #expect(transport.sent.count == 2)
            #expect(transport.sent[0].request == transport.sent[1].request)
            let key = arguments.contains("mine") ? "mine" : "key-1"
            #expect(transport.sent[1].request.header("Idempotency-Key") == key)
        }
        let heartbeat = ScriptedTransport([.failure(.connectionLost("reset")), answer])
        #expect(run(["task", "heartbeat", "r", "-q"], heartbeat) == CLIOutcome(exitCode: .ok))
        #expect(heartbeat.sent.map(\.request.path) == ["/v1/tasks/r/heartbeat", "/v1/tasks/r/heartbeat"])
        let twice = ScriptedTransport([.failure(.connectionLost("reset")), .failure(.connectionLost("reset")), answer])
        #expect(run(["task", "update", "r", "--step", "s"], twice).exitCode == .unavailable)
        #expect(twice.sent.count == 2)
        let refused = ScriptedTransport([.failure(.unreachable("connection refused"))])
        #expect(run(["task", "start", "--title", "T"], refused).exitCode == .unavailable)
        #expect(refused.sent.count == 1)
        let timedOut = ScriptedTransport([.failure(.timedOut)])
        #expect(run(["task", "update", "r", "--step", "s"], timedOut).exitCode == .unavailable)
        #expect(timedOut.sent.count == 1, "a timeout already took the whole budget")
    }

    static let unusable: [([String], String, String)] = [
        (["task", "start", "--title", "T"], "<html>", "not a JSON object"),
        (["task", "start", "--title", "T"], "[1,2]", "not a JSON object"),
        (
            ["task", "start", "--title", "T"], #"{"status":"ok","live_activity":{"status":"running"}}"#,
            "no live_activity.request_id in the answer"
        ),
        (["task", "show", "r"], #"{"status":"ok"}"#, "no live_activity in the answer"),
        (["task", "list"], #"{"status":"ok","tasks":7}"#, "no tasks list in the answer"),
    ]

    @Test(arguments: unusable)
    func unusableAnswersExitOne(arguments: [String], body: String, detail: String) {
        let outcome = run(arguments, ScriptedTransport(status: 200, body: body))
        #expect(
            outcome
                == CLIOutcome(
                    standardError: "aidenctl: unusable answer from aiden-board at /run/aiden/agent.sock: \(detail)\n",
                    exitCode: .failure))
    }

    @Test func quietStartPrintsOnlyTheIDAndQuietUpdatesAndEndsNothing() {
        let start = run(
            ["task", "start", "--title", "T", "-q"], ScriptedTransport(status: 201, body: Self.snapshotAnswer))
        #expect(start == CLIOutcome(standardOutput: "chat_ab12\n", exitCode: .ok))
        for arguments in [
            ["task", "update", "chat_ab12", "--step", "s", "-q"], ["task", "end", "--status", "completed", "--quiet"],
            ["task", "heartbeat", "-q"],
        ] {
            let transport = ScriptedTransport(status: 200, body: Self.snapshotAnswer)
            let outcome = run(arguments, transport, environment: ["AIDEN_TASK_ID": "chat_ab12"])
            #expect(outcome == CLIOutcome(exitCode: .ok), "\(arguments)")
            #expect(transport.sent.first?.request.path.hasPrefix("/v1/tasks/chat_ab12") == true)
        }
        let conflict = #"{"status":"error","error":{"code":"conflict","message":"task chat_ab12 has ended"}}"#
        let refused = run(
            ["task", "update", "chat_ab12", "--step", "s", "-q"], ScriptedTransport(status: 409, body: conflict))
        #expect(
            refused
                == CLIOutcome(standardError: "aidenctl: conflict: task chat_ab12 has ended (409)\n", exitCode: .failure)
        )
        let ended = run(["task", "heartbeat", "chat_ab12"], ScriptedTransport(status: 409, body: conflict))
        #expect(
            ended
                == CLIOutcome(standardError: "aidenctl: conflict: task chat_ab12 has ended (409)\n", exitCode: .failure)
        )
    }

    @Test func theSameStartRunTwiceIsOneTaskThroughTheDerivedKey() {
        let transport = ScriptedTransport([
            .success(AgentResponse(status: 201, body: Array(Self.snapshotAnswer.utf8))),
            .success(AgentResponse(status: 201, body: Array(Self.snapshotAnswer.utf8))),
        ])
        let arguments = ["task", "start", "--title", "Open Settings", "--request-id", "chat_ab12", "-q"]
        #expect(run(arguments, transport).exitCode == .ok)
        #expect(run(arguments, transport) == CLIOutcome(standardOutput: "chat_ab12\n", exitCode: .ok))
        #expect(transport.sent.map { $0.request.header("Idempotency-Key") } == ["start:chat_ab12", "start:chat_ab12"])
        #expect(transport.sent[0].request == transport.sent[1].request)
    }

    @Test func theKeyComesFromTheOptionOrTheEnvironment() {
        let transport = ScriptedTransport([
            .success(AgentResponse(status: 200, body: Array(Self.snapshotAnswer.utf8))),
            .success(AgentResponse(status: 200, body: Array(Self.snapshotAnswer.utf8))),
        ])
        let environment = ["AIDEN_IDEMPOTENCY_KEY": "env-key"]
        _ = run(["task", "end", "r", "--status", "completed"], transport, environment: environment)
        _ = run(
            ["task", "end", "r", "--status", "completed", "--idempotency-key", "opt"], transport,
            environment: environment)
        #expect(transport.sent.map { $0.request.header("Idempotency-Key") } == ["env-key", "opt"])
    }

    @Test func versionAndTheHelpCommandNeverTouchTheSocket() {
        let transport = ScriptedTransport([])
        #expect(run(["--version"], transport) == CLIOutcome(standardOutput: "aidenctl 9.8.7\n", exitCode: .ok))
        #expect(
            run(["help", "task", "run"], transport)
                == CLIOutcome(standardOutput: HelpTopic.taskRun.usage, exitCode: .ok))
        #expect(run(["help"], transport) == CLIOutcome(standardOutput: HelpTopic.main.usage, exitCode: .ok))
        #expect(run(["help", "nope"], transport).exitCode == .usage)
        #expect(transport.sent.isEmpty)
    }

    @Test func eventsPrintsOneLinePerEventAndWhatWasMissed() {
        let page =
            #"{"status":"ok","generation":"g","next":5,"truncated":true,"reset_required":false,"events":["#
            + #"{"id":5,"request_id":"chat_1","transition":"handoff","at":"2026-06-12T07:00:02Z"}]}"#
        let transport = ScriptedTransport(status: 200, body: page)
        let outcome = run(["events", "--since", "1"], transport)
        #expect(
            outcome
                == CLIOutcome(
                    standardOutput: "2026-06-12T07:00:02Z  handoff              chat_1\n",
                    standardError: "aidenctl: some events left the board's ring before they were read\n",
                    exitCode: .ok))
        #expect(transport.sent.first?.request.path == "/v1/events?since=1")
        let json = run(["events", "--json"], ScriptedTransport(status: 200, body: page))
        #expect(
            json.standardOutput
                == #"{"at":"2026-06-12T07:00:02Z","id":5,"request_id":"chat_1","transition":"handoff"}"# + "\n")
        let notAPage = run(["events"], ScriptedTransport(status: 200, body: #"{"status":"ok"}"#))
        #expect(notAPage.exitCode == .failure)
        #expect(notAPage.standardError.contains("no events page"))
    }

    @Test func helpAndUsageErrorsNeverTouchTheSocket() {
        let transport = ScriptedTransport([])
        let help = run(["task", "end", "--help"], transport)
        #expect(help == CLIOutcome(standardOutput: HelpTopic.taskEnd.usage, exitCode: .ok))
        let usage = run(["--json", "task", "end", "--id", "r"], transport)
        #expect(
            usage
                == CLIOutcome(
                    standardError: "aidenctl: missing required option --status (see 'aidenctl task end --help')\n",
                    exitCode: .usage))
        #expect(transport.sent.isEmpty)
    }
}
