import Testing

@testable import AgentCLI

@Suite("argv → Invocation")
struct CommandLineParserTests {
    static let accepted: [([String], Invocation)] = [
        (["status"], Invocation(command: .status)),
        (["--json", "status"], Invocation(json: true, command: .status)),
        (["status", "--json"], Invocation(json: true, command: .status)),
        (["--socket", "/tmp/a.sock", "task", "list"], Invocation(socketPath: "/tmp/a.sock", command: .taskList)),
        (
            ["task", "list", "--socket=/tmp/a.sock", "--json"],
            Invocation(socketPath: "/tmp/a.sock", json: true, command: .taskList)
        ),
        (["task", "--json", "show", "chat_1"], Invocation(json: true, command: .taskShow(requestID: "chat_1"))),
        (["task", "show", "--", "-odd"], Invocation(command: .taskShow(requestID: "-odd"))),
        (
            ["task", "start", "--title", "Open Settings"],
            Invocation(command: .taskStart(.init(title: "Open Settings")))
        ),
        (["task", "start", "--title=--dashes"], Invocation(command: .taskStart(.init(title: "--dashes")))),
        (
            [
                "--json", "task", "start", "--title", "T", "--request-id", "chat_x", "--phone-id", "p1", "--step", "S",
                "--phase", "phone_bridge", "--progress", "0.25", "--socket", "/s",
            ],
            Invocation(
                socketPath: "/s", json: true,
                command: .taskStart(
                    .init(
                        title: "T", requestID: "chat_x", phoneID: "p1", step: "S", phase: .phoneBridge, progress: 0.25))
            )
        ),
        (
            ["task", "start", "--title", "T", "--progress", "1", "--phone-id", ""],
            Invocation(command: .taskStart(.init(title: "T", phoneID: "", progress: 1)))
        ),
        (
            ["task", "start", "--title", "T", "--progress", "-0"],
            Invocation(command: .taskStart(.init(title: "T", progress: 0)))
        ),
        (
            [
                "task", "update", "--id", "chat_1", "--step", "S", "--phase", "waiting_user", "--action",
                "request_user_input", "--target", "OK button", "--app", "Settings", "--tool", "tap", "--progress", ".5",
                "--status", "needs_app", "--expected-revision", "42",
            ],
            Invocation(
                command: .taskUpdate(
                    .init(
                        requestID: "chat_1", step: "S", phase: .waitingUser, action: "request_user_input",
                        target: "OK button",
                        app: "Settings", tool: "tap", progress: 0.5, status: .needsApp, expectedRevision: 42)))
        ),
        (
            ["task", "update", "--id", "chat_1", "--target", ""],
            Invocation(command: .taskUpdate(.init(requestID: "chat_1", target: "")))
        ),
        (
            ["task", "update", "--id", "chat_1", "--status", "running", "--expected-revision", "0"],
            Invocation(command: .taskUpdate(.init(requestID: "chat_1", status: .running, expectedRevision: 0)))
        ),
        (
            ["task", "end", "--id", "chat_1", "--status", "failed", "--error", "screen locked"],
            Invocation(command: .taskEnd(.init(requestID: "chat_1", status: .failed, error: "screen locked")))
        ),
        (
            ["task", "end", "--status", "canceled", "--id", "chat_1"],
            Invocation(command: .taskEnd(.init(requestID: "chat_1", status: .canceled)))
        ),
        (["hook", "claude"], Invocation(command: .hook(.init(agent: .claude, timeoutSeconds: 50)))),
        (
            ["--socket", "/s", "hook", "claude", "--timeout", "100"],
            Invocation(socketPath: "/s", command: .hook(.init(agent: .claude, timeoutSeconds: 100)))
        ),
        // Codex appends its event to the notify command as the last argument.
        (
            ["hook", "codex", #"{"type":"agent-turn-complete"}"#],
            Invocation(command: .hook(.init(agent: .codex, payload: #"{"type":"agent-turn-complete"}"#)))
        ),
    ]

    @Test(arguments: accepted)
    func parses(arguments: [String], expected: Invocation) throws {
        #expect(try CommandLineParser.parse(arguments) == expected)
    }

    static let help: [([String], HelpTopic)] = [
        (["--help"], .main),
        (["-h"], .main),
        (["--json", "--help"], .main),
        (["task", "--help"], .task),
        (["task", "start", "-h"], .taskStart),
        (["task", "start", "--bogus", "--help"], .taskStart),
        (["task", "start", "--title", "--help"], .taskStart),
        (["task", "update", "--help", "--id"], .taskUpdate),
        (["--help", "task", "end"], .taskEnd),
        (["task", "list", "--help"], .taskList),
        (["task", "show", "--help"], .taskShow),
        (["status", "-h"], .status),
        (["task", "nonsense", "--help"], .task),
        (["nonsense", "--help"], .main),
    ]

    @Test(arguments: help)
    func helpWinsAnywhere(arguments: [String], topic: HelpTopic) throws {
        #expect(try CommandLineParser.parse(arguments).command == .help(topic))
    }

    static let updateFields =
        "--title, --phone-id, --status, --phase, --step, --action, --target, --app, --tool, --tool-status, --locale, --error, --progress, "
        + "--shows-progress, --can-stop, --requires-app, --stale-after, --abandon-after"

    @Test func everyTopicHasUsageNamingItsCommand() {
        for topic in HelpTopic.allCases {
            // `task run` prints the command's output, never aidenctl's JSON; `mcp` speaks JSON-RPC on its own;
            // `completion` prints a script and talks to no socket.
            let noJSON: Set<HelpTopic> = [.taskRun, .mcp, .hook, .hookClaude, .hookCodex]
            let json = noJSON.contains(topic) ? "" : "[--json] "
            let prefix =
                topic == .completion ? "usage: aidenctl completion " : "usage: aidenctl [--socket PATH] \(json)"
            #expect(topic.usage.hasPrefix(prefix), "\(topic)")
            #expect(
                topic.usage.contains("--json") == (!noJSON.contains(topic) && topic != .completion),
                "\(topic)")
            #expect(topic.usage.hasSuffix("\n"))
            #expect(topic.usage.split(separator: "\n").allSatisfy { $0.count <= 100 }, "\(topic)")
        }
        #expect(HelpTopic.taskUpdate.usage.contains("--expected-revision N"))
        #expect(HelpTopic.main.usage.contains("AIDEN_AGENT_SOCKET"))
    }

    @Test func theEnvironmentOverridesTheDefaultSocketButNotTheOption() throws {
        let environment = ["AIDEN_AGENT_SOCKET": "/env/agent.sock"]
        #expect(try CommandLineParser.parse(["status"], environment: environment).socketPath == "/env/agent.sock")
        #expect(
            try CommandLineParser.parse(["--socket", "/opt.sock", "status"], environment: environment).socketPath
                == "/opt.sock")
        #expect(
            try CommandLineParser.parse(["status"], environment: ["AIDEN_AGENT_SOCKET": ""]).socketPath
                == "/run/aiden/agent.sock")
        #expect(try CommandLineParser.parse(["status"]).socketPath == "/run/aiden/agent.sock")
    }

    static let rejected: [([String], String)] = [
        ([], "missing command (see 'aidenctl --help')"),
        (["--json"], "missing command (see 'aidenctl --help')"),
        (["frobnicate"], "unknown command 'frobnicate' (see 'aidenctl --help')"),
        (
            ["task"],
            "missing task command: start, run, update, heartbeat, end, list, show or wait (see 'aidenctl task --help')"
        ),
        (["task", "stop"], "unknown task command 'stop' (see 'aidenctl task --help')"),
        (["task", "start"], "missing required option --title (see 'aidenctl task start --help')"),
        (["task", "start", "--title", ""], "--title must not be empty (see 'aidenctl task start --help')"),
        (["task", "start", "--title"], "missing value for --title (see 'aidenctl task start --help')"),
        (["task", "start", "--title", "--json"], "missing value for --title (see 'aidenctl task start --help')"),
        (
            ["task", "start", "--title", "T", "--request-id", ""],
            "--request-id must not be empty (see 'aidenctl task start --help')"
        ),
        (
            ["task", "start", "--title", "T", "--progress", "1.5"],
            "--progress must be a number from 0 to 1, not '1.5' (see 'aidenctl task start --help')"
        ),
        (
            ["task", "start", "--title", "T", "--progress", "-0.1"],
            "--progress must be a number from 0 to 1, not '-0.1' (see 'aidenctl task start --help')"
        ),
        (
            ["task", "start", "--title", "T", "--progress", "nan"],
            "--progress must be a number from 0 to 1, not 'nan' (see 'aidenctl task start --help')"
        ),
        (
            ["task", "start", "--title", "T", "--progress", "50%"],
            "--progress must be a number from 0 to 1, not '50%' (see 'aidenctl task start --help')"
        ),
        (
            ["task", "start", "--title", "T", "--phase", "thinking"],
            "--phase must be planning, observing, acting, phone_bridge, waiting_app, waiting_user, verifying or "
                + "answering, not 'thinking' (see 'aidenctl task start --help')"
        ),
        (
            ["task", "start", "--title", "T", "--title", "U"],
            "option --title given more than once (see 'aidenctl task start --help')"
        ),
        (["--json", "status", "--json"], "option --json given more than once (see 'aidenctl status --help')"),
        (
            ["--socket", "/a", "status", "--socket=/b"],
            "option --socket given more than once (see 'aidenctl status --help')"
        ),
        (
            ["task", "start", "--title", "T", "--expected-revision", "3"],
            "'task start' takes no option --expected-revision (see 'aidenctl task start --help')"
        ),
        (["task", "list", "--id", "x"], "'task list' takes no option --id (see 'aidenctl task list --help')"),
        (["status", "--title", "x"], "'status' takes no option --title (see 'aidenctl status --help')"),
        (["task", "start", "--titel", "T"], "unknown option '--titel' (see 'aidenctl task start --help')"),
        (["task", "start", "-t", "T"], "unknown option '-t' (see 'aidenctl task start --help')"),
        (["status", "--json=yes"], "option --json takes no value (see 'aidenctl status --help')"),
        (["status", "extra"], "unexpected argument 'extra' (see 'aidenctl status --help')"),
        (["hook"], "missing hook command: claude or codex (see 'aidenctl hook --help')"),
        (["hook", "cursor"], "unknown hook command 'cursor' (see 'aidenctl hook --help')"),
        (
            ["hook", "codex"],
            "missing the event: Codex passes it as the last argument (JSON) (see 'aidenctl hook codex --help')"
        ),
        (["hook", "codex", "{}", "{}"], "unexpected argument '{}' (see 'aidenctl hook codex --help')"),
        (["hook", "claude", "{}"], "unexpected argument '{}' (see 'aidenctl hook claude --help')"),
        (
            ["hook", "claude", "--timeout", "0"],
            "--timeout must be a whole number of seconds, at least 1, not '0' (see 'aidenctl hook claude --help')"
        ),
        (
            ["hook", "codex", "--timeout", "5", "{}"],
            "'hook codex' takes no option --timeout (see 'aidenctl hook codex --help')"
        ),
        (["task", "list", "all"], "unexpected argument 'all' (see 'aidenctl task list --help')"),
        (
            ["task", "show"],
            "missing request id: aidenctl task show R, aidenctl task show --id R, or $AIDEN_TASK_ID "
                + "(see 'aidenctl task show --help')"
        ),
        (["task", "show", ""], "request id must not be empty (see 'aidenctl task show --help')"),
        (["task", "show", "a", "b"], "unexpected argument 'b' (see 'aidenctl task show --help')"),
        (
            ["task", "update", "--id", "r"],
            "nothing to update: give at least one of \(Self.updateFields) (see 'aidenctl task update --help')"
        ),
        (
            ["task", "update", "--id", "r", "--expected-revision", "3"],
            "nothing to update: give at least one of \(Self.updateFields) (see 'aidenctl task update --help')"
        ),
        (
            ["task", "update", "--step", "s"],
            "missing request id: aidenctl task update R, aidenctl task update --id R, or $AIDEN_TASK_ID "
                + "(see 'aidenctl task update --help')"
        ),
        (
            ["task", "update", "--id", "r", "--status", "completed"],
            "--status must be needs_app or running, not 'completed' (end a task with 'aidenctl task end') "
                + "(see 'aidenctl task update --help')"
        ),
        (
            ["task", "update", "--id", "r", "--status", "paused"],
            "--status must be needs_app or running, not 'paused' (see 'aidenctl task update --help')"
        ),
        (
            ["task", "update", "--id", "r", "--step", "s", "--expected-revision", "-1"],
            "--expected-revision must be a non-negative integer, not '-1' (see 'aidenctl task update --help')"
        ),
        (
            ["task", "update", "--id", "r", "--step", "s", "--expected-revision", "+3"],
            "--expected-revision must be a non-negative integer, not '+3' (see 'aidenctl task update --help')"
        ),
        (
            ["task", "update", "--id", "r", "--step", "s", "--expected-revision", "99999999999999999999"],
            "--expected-revision must be a non-negative integer, not '99999999999999999999' "
                + "(see 'aidenctl task update --help')"
        ),
        (["task", "end", "--id", "r"], "missing required option --status (see 'aidenctl task end --help')"),
        (
            ["task", "end", "--id", "r", "--status", "done"],
            "--status must be completed, failed or canceled, not 'done' (see 'aidenctl task end --help')"
        ),
        (
            ["task", "end", "--status", "completed"],
            "missing request id: aidenctl task end R, aidenctl task end --id R, or $AIDEN_TASK_ID "
                + "(see 'aidenctl task end --help')"
        ),
        (["--socket", "", "status"], "--socket must not be empty (see 'aidenctl status --help')"),
        (
            ["task", "start", "--title", "T", "--phase", "x\u{1B}[2J\n"],
            "--phase must be planning, observing, acting, phone_bridge, waiting_app, waiting_user, verifying or "
                + "answering, not 'x\\u{1b}[2J\\n' (see 'aidenctl task start --help')"
        ),
    ]

    @Test(arguments: rejected)
    func rejects(arguments: [String], message: String) {
        do {
            let invocation = try CommandLineParser.parse(arguments)
            Issue.record("accepted \(arguments) as \(invocation)")
        } catch {
            #expect(error.description == message)
            #expect(!error.description.contains("\n"))
        }
    }
}
