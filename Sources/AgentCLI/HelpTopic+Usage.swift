extension HelpTopic {
    /// The text `--help` (and `aidenctl help …`) prints, ending in a newline.
    package var usage: String {
        switch self {
        case .main: Self.mainUsage
        case .task: Self.taskUsage
        case .taskStart: Self.startUsage
        case .taskRun: Self.runUsage
        case .taskUpdate: Self.updateUsage
        case .taskHeartbeat: Self.heartbeatUsage
        case .taskEnd: Self.endUsage
        case .taskList: Self.listUsage
        case .taskShow: Self.showUsage
        case .taskWait: Self.waitUsage
        case .events: Self.eventsUsage
        case .status: Self.statusUsage
        case .mcp: Self.mcpUsage
        case .hook: Self.hookUsage
        case .hookClaude: Self.hookClaudeUsage
        case .hookCodex: Self.hookCodexUsage
        case .completion: Self.completionUsage
        }
    }

    /// The main help's list of commands: every command that runs (`allCases` below a group), then `help`.
    private static var commandList: String {
        let rows =
            allCases.filter { $0 != .main && $0.subcommands.isEmpty }.map { ($0.listing, $0.summary) }
            + [(helpWord + " [command]", helpSummary)]
        return rows.map { "  " + $0 + String(repeating: " ", count: max(1, 19 - $0.count)) + $1 + "\n" }
            .joined()
    }

    private static let socketOption = """
          --socket PATH            aiden-board's agent socket (default: $AIDEN_AGENT_SOCKET if
                                   set, else /run/aiden/agent.sock)

        """

    private static let helpOption = """
          -h, --help               show this help

        """

    private static let globalOptions =
        socketOption + """
              --json                   print the daemon's answer as one JSON object on one line

            """ + helpOption

    private static let writeOptions = """
          --idempotency-key K      send the write with key K (default: $AIDEN_IDEMPOTENCY_KEY if set,
                                   else a fresh one): the same write sent again with the same key is
                                   answered, not repeated
          -q, --quiet              print nothing on success

        """

    private static let mainUsage = """
        usage: aidenctl [--socket PATH] [--json] <command> [options]

        Tell aiden-board what an AI agent is doing; the phone shows it as a Live Activity card.

        Commands:

        """ + commandList + """

            Options (anywhere on the line):

            """ + globalOptions + """
              --version                print aidenctl's version

            Environment: AIDEN_AGENT_SOCKET (the socket), AIDEN_TASK_ID (the request id of task
            update, heartbeat, end, show and wait when none is given), AIDEN_IDEMPOTENCY_KEY (the key
            of a write).

            Completion: 'aidenctl completion bash|zsh|fish' prints a completion script (source <(...)).

            Exit status: 0 ok, 64 usage error, 65 input rejected by the daemon, 69 daemon unreachable,
            1 any other failure, 75 task wait timed out; task run exits with its command's status.
            Run 'aidenctl help <command>' for a command's options.

            """

    private static let taskUsage = """
        usage: aidenctl [--socket PATH] [--json] task start|run|update|heartbeat|end|list|show|wait [...]

        Commands:
          task start --title T [...]                    start a task, print its request id
          task run --title T [...] -- CMD [ARGS...]     run CMD as a task
          task update R [...]                           change a running task
          task heartbeat R                              say the agent is still at work on it
          task end R --status completed|failed|canceled [--error TEXT]
          task list                                     list tasks
          task show R                                   show one task
          task wait R --for stop|answer|end             wait for the person's stop, answer, or the end

        R is the request id: an argument, --id R, or $AIDEN_TASK_ID.
        Run 'aidenctl help task <command>' for a command's options.

        """

    /// The options that set a start's snapshot fields, shared by `task start` and `task run`.
    private static let startFieldOptions = """
          --title T                the task's title on the card (required, not empty)
          --request-id R           the request id to use (default: the daemon makes one); with no
                                   --idempotency-key the start is sent with key start:R, so the
                                   same start run again returns the same task
          --phone-id P             show the task only on phone P (default: on any phone)
          --status S               running (default) or needs_app
          --phase P                planning (default), observing, acting, phone_bridge, waiting_app,
                                   waiting_user, verifying or answering
          --step S                 the current step, e.g. "Checking the current screen"
          --action A               the current action, e.g. observe_screen, request_user_input
          --target T               what the action works on
          --app A                  the app in use on the phone
          --tool N                 the last tool the agent called
          --tool-status TEXT       what the tool is doing now: the card's tool line, with the time
                                   since it was set
          --locale TAG             the language of the task's texts, a BCP 47 tag such as en-US
          --error TEXT             an error to show on the card
          --progress F             progress as a number from 0 to 1, e.g. 0.25
          --shows-progress B       true or false: whether the card shows a progress bar
                                   (default: true when --progress is given)
          --can-stop B             true or false (default): whether the person may stop the task
          --requires-app B         true or false (default): whether the task needs the phone's app
          --stale-after N          with no news from the agent for N seconds (10-86400, default
                                   300) the card says so; any update or heartbeat is news
          --abandon-after N        with no news for N seconds (10-604800, not less than
                                   --stale-after, default 3600) the board ends the task as failed

        """

    private static let startUsage =
        """
        usage: aidenctl [--socket PATH] [--json] task start --title T [--request-id R] [--phase P]
                        [--step S] [--progress F] [field options] [--idempotency-key K] [-q]

        Start a task. Prints a short summary, then the request id alone on the last line
        (with -q: only the id; with --json: one object with "request_id" and "live_activity").

        Options:

        """ + startFieldOptions + writeOptions + globalOptions

    private static let runUsage =
        """
        usage: aidenctl [--socket PATH] task run --title T [start options] [--progress-from-stdout]
                        -- CMD [ARGS...]

        Start a task, run CMD with AIDEN_TASK_ID and AIDEN_AGENT_SOCKET set to it, and end the task
        when CMD ends: completed on exit status 0, canceled when aidenctl was asked to stop it
        (SIGINT, SIGTERM and SIGHUP are passed on to CMD), failed otherwise, with the last line
        CMD wrote to stderr as the error. CMD's output is passed through. Exits with CMD's status
        (128 + the signal if one killed it; 126 or 127 if it could not run). If the task cannot
        be started, CMD is not run.

        Options:
          --progress-from-stdout   read lines "PROGRESS 0.4 Step text" (or "PROGRESS 40%") on CMD's
                                   stdout as progress updates; other lines are passed through;
                                   the card shows a progress bar unless --shows-progress false

        """ + startFieldOptions + writeOptions + socketOption + helpOption

    private static let updateUsage =
        """
        usage: aidenctl [--socket PATH] [--json] task update R [--step S] [--phase P] [--progress F]
                        [field options] [--expected-revision N] [--idempotency-key K] [-q]

        Change a task that has not ended. Only the fields given change; an empty value ("")
        clears a text field. Prints the task as it is now (with -q: nothing).

        Options:
          R, --id R                the task's request id (default: $AIDEN_TASK_ID)
          --title T                the task's title
          --phone-id P             show the task only on phone P ("": on any phone)
          --status S               needs_app or running (end a task with 'aidenctl task end')
          --phase P                planning, observing, acting, phone_bridge, waiting_app,
                                   waiting_user, verifying or answering
          --step S                 the current step
          --action A               the current action, e.g. observe_screen, request_user_input
          --target T               what the action works on
          --app A                  the app in use on the phone
          --tool N                 the last tool the agent called
          --tool-status TEXT       the card's tool line; its timer restarts when the text changes,
                                   "" clears it
          --locale TAG             the language of the task's texts, a BCP 47 tag ("": not said)
          --error TEXT             an error to show on the card
          --progress F             progress as a number from 0 to 1
          --shows-progress B       true or false: whether the card shows a progress bar
          --can-stop B             true or false: whether the person may stop the task
          --requires-app B         true or false: whether the task needs the phone's app
          --stale-after N          seconds without news before the card says so (10-86400)
          --abandon-after N        seconds without news before the board ends the task as failed
                                   (10-604800, not less than the task's stale-after)
          --expected-revision N    only apply if the task is still at revision N (else exit 1, 409)

        """ + writeOptions + globalOptions

    private static let heartbeatUsage = """
        usage: aidenctl [--socket PATH] [--json] task heartbeat R [-q]

        Tell the board the agent is still at work on task R without changing it, so that the card
        does not say "no news" and the board does not end it as abandoned (see --stale-after and
        --abandon-after of 'aidenctl task start'). Changes nothing, so it is safe to repeat. Prints
        the task as it is now (with -q: nothing); a task that has ended is refused (exit 1, 409).

        Options:
          R, --id R                the task's request id (default: $AIDEN_TASK_ID)
          -q, --quiet              print nothing on success

        """ + globalOptions

    private static let endUsage =
        """
        usage: aidenctl [--socket PATH] [--json] task end R --status completed|failed|canceled
                        [--error TEXT] [--dismiss WHEN] [--expected-revision N]
                        [--idempotency-key K] [-q]

        End a task. An ended task is final: later updates are refused. Prints the final task
        (with -q: nothing).

        Options:
          R, --id R                the task's request id (default: $AIDEN_TASK_ID)
          --status S               completed, failed or canceled (required)
          --error TEXT             what went wrong, shown on the card (default: empty)
          --dismiss WHEN           how long the ended card stays on the phone: immediate,
                                   default (the board's retention) or after:SECONDS
                                   (0 to 86400, never longer than the retention)
          --expected-revision N    only end it if it is still at revision N (else exit 1, 409)

        """ + writeOptions + globalOptions

    private static let listUsage = """
        usage: aidenctl [--socket PATH] [--json] task list

        List the tasks aiden-board holds: id, status, phase, progress and title.

        Options:

        """ + globalOptions

    private static let showUsage = """
        usage: aidenctl [--socket PATH] [--json] task show R

        Show every field of task R (R: an argument, --id R, or $AIDEN_TASK_ID).

        Options:

        """ + globalOptions

    private static let waitUsage = """
        usage: aidenctl [--socket PATH] [--json] task wait R --for stop|answer|end [--timeout SECONDS]

        Wait until the person asks from the phone to stop task R (stop), answers it done or refuse
        (answer), or R ends (end), and print one line: "stop requested from phone P", "answered
        done", "ended completed"; with --json the event as one JSON object. One already recorded
        counts at once. R: an argument, --id R, or $AIDEN_TASK_ID.

        Options:
          --for stop|answer|end    what to wait for (required)
          --timeout SECONDS        give up after this many whole seconds (exit 75); default: wait
                                   as long as it takes

        """ + globalOptions + """

            Exit status: 0 it came, 75 the timeout passed first, 1 the task ended before a stop or
            an answer (or is unknown), 64, 65, 69 as for every command.

            """

    private static let eventsUsage = """
        usage: aidenctl [--socket PATH] [--json] events [--since N] [--follow]

        Print the task transitions the board keeps (started, handoff, foreground_recovery,
        completed, failed, canceled, and the person's stop_requested, answered, dismissed), one per
        line: time, transition, request id (and an answered one's answer); with --json
        one JSON object per event and line. With --follow, keep printing new ones as they happen
        (until interrupted).

        Options:
          --since N                only events after event N (default: 0, every event kept)
          --follow                 keep going: print each new event as the board records it

        """ + globalOptions

    private static let statusUsage = """
        usage: aidenctl [--socket PATH] [--json] status

        Show aiden-board's health: version, uptime, whether Live Activities are enabled,
        task counts and the Wake state, as the daemon reports them.

        Options:

        """ + globalOptions

    private static let mcpUsage = """
        usage: aidenctl [--socket PATH] mcp

        Serve a Model Context Protocol server on stdin and stdout (JSON-RPC 2.0, one message per line;
        revisions 2025-06-18, 2025-03-26, 2024-11-05) with tools for a task's life: task_start,
        task_update, task_handover (ask the person and wait for done, refuse or stop), task_end,
        task_heartbeat, task_list, task_status. Runs until stdin ends. An MCP client starts it as a
        command; see docs/agents.md.

        Options:

        """ + socketOption + helpOption

    private static let hookUsage = """
        usage: aidenctl [--socket PATH] hook claude|codex [...]

        Report a coding agent's hook events to the board as its session's task: the phone shows
        what the agent does, alerts when it waits for the person, and answers its permission
        requests. A hook never fails the agent's session: with the board away it notes so on
        stderr and exits 0. See docs/agents.md for the agents' configuration.

        Commands:
          hook claude [--timeout SECONDS]   a Claude Code hook: reads the event on stdin
          hook codex JSON                   Codex's notify: the event is the last argument

        """

    private static let hookClaudeUsage = """
        usage: aidenctl [--socket PATH] hook claude [--timeout SECONDS]

        Read one Claude Code hook event (JSON) on stdin and apply it to the session's task:
        SessionStart starts it, UserPromptSubmit, PreToolUse and PostToolUse set its step
        ("Bash: make test", at most one change every 2 s), Notification hands over to the person,
        Stop and SessionEnd end it completed. PermissionRequest asks the person on the phone
        ("Allow Bash: rm -rf build?": Done allows, Refuse denies, a stop denies and interrupts)
        and prints Claude Code's decision; with no answer within --timeout it prints nothing, and
        Claude Code asks in the terminal. Never approves by itself. Always exits 0.

        Options:
          --timeout SECONDS        how long a permission request waits for the person (default 50;
                                   keep it below the hook's timeout in Claude Code's settings)

        """ + socketOption + helpOption

    private static let hookCodexUsage = """
        usage: aidenctl [--socket PATH] hook codex JSON

        Apply one Codex notify event, given as the last argument as Codex passes it, to the
        thread's task: agent-turn-complete starts it when needed and hands over to the person
        with the assistant's last message as the step. Other events are ignored. Always exits 0.

        Options:

        """ + socketOption + helpOption

    private static let completionUsage = """
        usage: aidenctl completion bash|zsh|fish

        Print the script that completes aidenctl's commands, options and their values in that shell.
        Load it into the running shell with 'source <(aidenctl completion bash)' (zsh: the same, after
        compinit; fish: 'aidenctl completion fish | source'), or install it where the shell looks:
          bash  /usr/share/bash-completion/completions/aidenctl
          zsh   _aidenctl in a directory of $fpath, e.g. /usr/share/zsh/vendor-completions
          fish  /usr/share/fish/vendor_completions.d/aidenctl.fish

        Options:

        """ + helpOption
}
