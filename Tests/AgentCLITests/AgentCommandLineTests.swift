import Testing

@testable import AgentCLI

/// The command line an agent wants: every field as a flag, ids as arguments or from the environment,
/// `-q`, `--version`, `help`, `task run` and `events`.
@Suite("argv → Invocation, for agents")
struct AgentCommandLineTests {
    static let accepted: [([String], [String: String], Invocation)] = [
        (
            ["task", "update", "chat_1", "--step", "S"], [:],
            Invocation(command: .taskUpdate(.init(requestID: "chat_1", step: "S")))
        ),
        (
            ["task", "update", "--step", "S"], ["AIDEN_TASK_ID": "chat_env"],
            Invocation(command: .taskUpdate(.init(requestID: "chat_env", step: "S")))
        ),
        (
            ["task", "update", "--id", "chat_opt", "--step", "S"], ["AIDEN_TASK_ID": "chat_env"],
            Invocation(command: .taskUpdate(.init(requestID: "chat_opt", step: "S")))
        ),
        (
            ["task", "end", "chat_1", "--status", "completed", "-q"], ["AIDEN_TASK_ID": "chat_env"],
            Invocation(quiet: true, command: .taskEnd(.init(requestID: "chat_1", status: .completed)))
        ),
        (["task", "show"], ["AIDEN_TASK_ID": "chat_env"], Invocation(command: .taskShow(requestID: "chat_env"))),
        (
            ["task", "heartbeat", "chat_1", "-q"], ["AIDEN_TASK_ID": "chat_env"],
            Invocation(quiet: true, command: .taskHeartbeat(requestID: "chat_1"))
        ),
        (
            ["task", "heartbeat", "--id", "chat_opt", "--json"], ["AIDEN_TASK_ID": "chat_env"],
            Invocation(json: true, command: .taskHeartbeat(requestID: "chat_opt"))
        ),
        (
            ["task", "heartbeat"], ["AIDEN_TASK_ID": "chat_env"],
            Invocation(command: .taskHeartbeat(requestID: "chat_env"))
        ),
        (["help", "task", "heartbeat"], [:], Invocation(command: .help(.taskHeartbeat))),
        (
            ["task", "start", "--title", "T", "--stale-after", "60", "--abandon-after", "600"], [:],
            Invocation(command: .taskStart(.init(title: "T", staleAfterSeconds: 60, abandonAfterSeconds: 600)))
        ),
        (
            ["task", "update", "R", "--stale-after", "900"], [:],
            Invocation(command: .taskUpdate(.init(requestID: "R", staleAfterSeconds: 900)))
        ),
        (
            ["task", "update", "R", "--abandon-after=7200"], [:],
            Invocation(command: .taskUpdate(.init(requestID: "R", abandonAfterSeconds: 7200)))
        ),
        (
            ["task", "run", "--title", "Build", "--stale-after", "1800", "--abandon-after", "86400", "--", "make"],
            [:],
            Invocation(
                command: .taskRun(
                    .init(
                        start: .init(
                            title: "Build", canStop: true, staleAfterSeconds: 1800, abandonAfterSeconds: 86400),
                        command: ["make"])))
        ),
        (["task", "show", "--id", "chat_1"], [:], Invocation(command: .taskShow(requestID: "chat_1"))),
        (
            ["task", "show", "--", "-odd"], ["AIDEN_TASK_ID": "chat_env"],
            Invocation(command: .taskShow(requestID: "-odd"))
        ),
        (
            [
                "task", "start", "--title", "T", "--status", "needs_app", "--action", "tap", "--target", "OK",
                "--app", "Settings", "--tool", "screenshot", "--error", "e", "--shows-progress", "false",
                "--can-stop", "true", "--requires-app", "true", "--idempotency-key", "k-1", "--quiet",
            ],
            [:],
            Invocation(
                quiet: true,
                command: .taskStart(
                    .init(
                        title: "T", status: .needsApp, action: "tap", target: "OK", app: "Settings", tool: "screenshot",
                        error: "e", showsProgress: false, canStop: true, requiresApp: true, idempotencyKey: "k-1")))
        ),
        (
            [
                "task", "update", "R", "--title", "New", "--phone-id", "", "--error", "", "--shows-progress", "true",
                "--can-stop", "false", "--requires-app", "false",
            ],
            [:],
            Invocation(
                command: .taskUpdate(
                    .init(
                        requestID: "R", title: "New", phoneID: "", error: "", showsProgress: true, canStop: false,
                        requiresApp: false)))
        ),
        (
            ["task", "end", "R", "--status", "failed", "--expected-revision", "4"], [:],
            Invocation(command: .taskEnd(.init(requestID: "R", status: .failed, expectedRevision: 4)))
        ),
        (
            ["task", "end", "R", "--status", "completed", "--dismiss", "immediate"], [:],
            Invocation(command: .taskEnd(.init(requestID: "R", status: .completed, dismissAfterSeconds: 0)))
        ),
        (
            ["task", "end", "R", "--status", "completed", "--dismiss", "after:30"], [:],
            Invocation(command: .taskEnd(.init(requestID: "R", status: .completed, dismissAfterSeconds: 30)))
        ),
        (
            ["task", "end", "R", "--status", "completed", "--dismiss=default"], [:],
            Invocation(command: .taskEnd(.init(requestID: "R", status: .completed)))
        ),
        (
            ["task", "start", "--title", "T"], ["AIDEN_IDEMPOTENCY_KEY": "env-key"],
            Invocation(command: .taskStart(.init(title: "T", idempotencyKey: "env-key")))
        ),
        (
            ["task", "start", "--title", "T", "--idempotency-key", "opt"], ["AIDEN_IDEMPOTENCY_KEY": "env-key"],
            Invocation(command: .taskStart(.init(title: "T", idempotencyKey: "opt")))
        ),
        (
            ["task", "update", "R", "--step", "s"], ["AIDEN_IDEMPOTENCY_KEY": ""],
            Invocation(command: .taskUpdate(.init(requestID: "R", step: "s")))
        ),
        (
            ["task", "run", "--title", "Build", "--request-id", "b-1", "--", "make", "-j", "--keep-going", "-h"], [:],
            Invocation(
                command: .taskRun(
                    .init(
                        start: .init(title: "Build", requestID: "b-1", canStop: true),
                        command: ["make", "-j", "--keep-going", "-h"])))
        ),
        (
            ["--socket", "/s", "task", "run", "-q", "--progress-from-stdout", "--title", "T", "--", "./x"], [:],
            Invocation(
                socketPath: "/s", quiet: true,
                command: .taskRun(
                    .init(
                        start: .init(title: "T", showsProgress: true, canStop: true), command: ["./x"],
                        progressFromStdout: true)))
        ),
        (
            ["task", "run", "--title", "T", "--progress-from-stdout", "--shows-progress", "false", "--", "./x"], [:],
            Invocation(
                command: .taskRun(
                    .init(
                        start: .init(title: "T", showsProgress: false, canStop: true), command: ["./x"],
                        progressFromStdout: true)))
        ),
        (
            ["task", "run", "--title", "T", "--can-stop", "false", "--", "./x"], [:],
            Invocation(command: .taskRun(.init(start: .init(title: "T", canStop: false), command: ["./x"])))
        ),
        (
            ["task", "wait", "chat_1", "--for", "stop"], [:],
            Invocation(command: .taskWait(.init(requestID: "chat_1", target: .stop)))
        ),
        (
            ["task", "wait", "--for=answer", "--timeout", "30", "--json"], ["AIDEN_TASK_ID": "chat_2"],
            Invocation(json: true, command: .taskWait(.init(requestID: "chat_2", target: .answer, timeoutSeconds: 30)))
        ),
        (["events"], [:], Invocation(command: .events(.init()))),
        (
            ["events", "--follow", "--since", "42", "--json"], [:],
            Invocation(json: true, command: .events(.init(since: 42, follow: true)))
        ),
        (["--version"], [:], Invocation(command: .version)),
        (["task", "list", "--version"], [:], Invocation(command: .version)),
        (["help"], [:], Invocation(command: .help(.main))),
        (["help", "task"], [:], Invocation(command: .help(.task))),
        (["help", "task", "run"], [:], Invocation(command: .help(.taskRun))),
        (["help", "events"], [:], Invocation(command: .help(.events))),
        (["task", "run", "--title", "T", "--help", "--", "cmd"], [:], Invocation(command: .help(.taskRun))),
    ]

    @Test(arguments: accepted)
    func parses(arguments: [String], environment: [String: String], expected: Invocation) throws {
        #expect(try CommandLineParser.parse(arguments, environment: environment) == expected)
    }

    static let rejected: [([String], String)] = [
        (
            ["task", "update", "R", "--id", "S", "--step", "s"],
            "request id given twice: as an argument and with --id (see 'aidenctl task update --help')"
        ),
        (["task", "update", "R", "S", "--step", "s"], "unexpected argument 'S' (see 'aidenctl task update --help')"),
        (["task", "end", "", "--status", "failed"], "request id must not be empty (see 'aidenctl task end --help')"),
        (
            ["task", "end", "R", "--status", "completed", "--dismiss", "later"],
            "--dismiss must be immediate, default or after:SECONDS, not 'later' (see 'aidenctl task end --help')"
        ),
        (
            ["task", "end", "R", "--status", "completed", "--dismiss", "after:-5"],
            "--dismiss must be immediate, default or after:SECONDS, not 'after:-5' (see 'aidenctl task end --help')"
        ),
        (
            ["task", "update", "R", "--step", "s", "--dismiss", "immediate"],
            "'task update' takes no option --dismiss (see 'aidenctl task update --help')"
        ),
        (["task", "list", "-q"], "'task list' takes no option --quiet (see 'aidenctl task list --help')"),
        (
            ["task", "start", "--title", "T", "-q", "--json"],
            "--quiet and --json do not go together (see 'aidenctl task start --help')"
        ),
        (
            ["task", "run", "--title", "T", "--json", "--", "ls"],
            "'task run' takes no option --json (see 'aidenctl task run --help')"
        ),
        (
            ["task", "run", "--title", "T", "ls"],
            "unexpected argument 'ls' (see 'aidenctl task run --help')"
        ),
        (
            ["task", "run", "--title", "T"],
            "missing command to run: aidenctl task run --title T -- CMD [ARGS...] (see 'aidenctl task run --help')"
        ),
        (
            ["task", "run", "--title", "T", "--"],
            "missing command to run: aidenctl task run --title T -- CMD [ARGS...] (see 'aidenctl task run --help')"
        ),
        (["task", "run", "--", "ls"], "missing required option --title (see 'aidenctl task run --help')"),
        (
            ["task", "start", "--title", "T", "--progress-from-stdout"],
            "'task start' takes no option --progress-from-stdout (see 'aidenctl task start --help')"
        ),
        (
            ["task", "start", "--title", "T", "--can-stop", "yes"],
            "--can-stop must be true or false, not 'yes' (see 'aidenctl task start --help')"
        ),
        (
            ["task", "start", "--title", "T", "--status", "completed"],
            "--status must be needs_app or running, not 'completed' (end a task with 'aidenctl task end') "
                + "(see 'aidenctl task start --help')"
        ),
        (
            ["task", "start", "--title", "T", "--idempotency-key", ""],
            "--idempotency-key must not be empty (see 'aidenctl task start --help')"
        ),
        (
            ["events", "--since", "-1"],
            "--since must be a non-negative integer, not '-1' (see 'aidenctl events --help')"
        ),
        (["events", "now"], "unexpected argument 'now' (see 'aidenctl events --help')"),
        (
            ["task", "start", "--title", "T", "--stale-after", "5m"],
            "--stale-after must be a whole number of seconds, not '5m' (see 'aidenctl task start --help')"
        ),
        (
            ["task", "run", "--title", "T", "--abandon-after", "-1", "--", "make"],
            "--abandon-after must be a whole number of seconds, not '-1' (see 'aidenctl task run --help')"
        ),
        (
            ["task", "update", "R", "--stale-after", "1.5"],
            "--stale-after must be a whole number of seconds, not '1.5' (see 'aidenctl task update --help')"
        ),
        (
            ["task", "update", "R", "--abandon-after", ""],
            "--abandon-after must be a whole number of seconds, not '' (see 'aidenctl task update --help')"
        ),
        (
            ["task", "heartbeat", "R", "S"],
            "unexpected argument 'S' (see 'aidenctl task heartbeat --help')"
        ),
        (
            ["task", "heartbeat", "R", "--step", "s"],
            "'task heartbeat' takes no option --step (see 'aidenctl task heartbeat --help')"
        ),
        (
            ["task", "heartbeat", "R", "--id", "S"],
            "request id given twice: as an argument and with --id (see 'aidenctl task heartbeat --help')"
        ),
        (["status", "--follow"], "'status' takes no option --follow (see 'aidenctl status --help')"),
        (["help", "frobnicate"], "unknown command 'frobnicate' (see 'aidenctl --help')"),
        (["help", "task", "stop"], "unknown task command 'stop' (see 'aidenctl task --help')"),
        (["help", "status", "extra"], "unexpected argument 'extra' (see 'aidenctl status --help')"),
        (
            ["task", "wait", "R"],
            "missing required option --for (one of stop, answer, end) (see 'aidenctl task wait --help')"
        ),
        (
            ["task", "wait", "R", "--for", "done"],
            "--for must be one of stop, answer, end, not 'done' (see 'aidenctl task wait --help')"
        ),
        (
            ["task", "wait", "R", "--for", "end", "--timeout", "0"],
            "--timeout must be a whole number of seconds, at least 1, not '0' (see 'aidenctl task wait --help')"
        ),
        (
            ["task", "wait", "R", "--for", "end", "-q"],
            "'task wait' takes no option --quiet (see 'aidenctl task wait --help')"
        ),
    ]

    @Test(arguments: rejected)
    func rejects(arguments: [String], message: String) {
        do {
            let invocation = try CommandLineParser.parse(arguments, environment: ["AIDEN_TASK_ID": "chat_env"])
            Issue.record("accepted \(arguments) as \(invocation)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func anEmptyTaskIDVariableIsUnset() {
        #expect(throws: UsageError.self) {
            try CommandLineParser.parse(["task", "show"], environment: ["AIDEN_TASK_ID": ""])
        }
    }

    @Test func everyFieldOfTheAPIHasAStartOrUpdateFlagAndTheHelpListsIt() {
        let start = HelpTopic.taskStart.usage
        let update = HelpTopic.taskUpdate.usage
        for option in OptionName.startFields + [.title] {
            #expect(start.contains(option.spelling + " "), "task start --help lists \(option.spelling)")
            #expect(HelpTopic.taskRun.usage.contains(option.spelling + " "), "task run --help lists \(option.spelling)")
        }
        for option in OptionName.updateFields + [.expectedRevision, .idempotencyKey] {
            #expect(update.contains(option.spelling + " "), "task update --help lists \(option.spelling)")
        }
        #expect(HelpTopic.main.usage.contains("task heartbeat R"))
        #expect(HelpTopic.task.usage.contains("task heartbeat R"))
        #expect(HelpTopic.main.usage.contains("AIDEN_TASK_ID"))
        #expect(HelpTopic.main.usage.contains("--version"))
    }
}
