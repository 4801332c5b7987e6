extension HelpTopic {
    /// The text `--help` prints, ending in a newline.
    package var usage: String {
        switch self {
        case .main: Self.mainUsage
        case .task: Self.taskUsage
        case .taskStart: Self.startUsage
        case .taskUpdate: Self.updateUsage
        case .taskEnd: Self.endUsage
        case .taskList: Self.listUsage
        case .taskShow: Self.showUsage
        case .status: Self.statusUsage
        }
    }

    private static let globalOptions = """
          --socket PATH      aiden-board's agent socket (default: $AIDEN_AGENT_SOCKET if set,
                             else /run/aiden/agent.sock)
          --json             print the daemon's answer as one JSON object on one line
          -h, --help         show this help

        """

    private static let mainUsage = """
        usage: aidenctl [--socket PATH] [--json] <command> [options]

        Tell aiden-board what an AI agent is doing; the phone shows it as a Live Activity card.

        Commands:
          task start         start a task and print its request id (last line)
          task update        change a task's step, phase, action, progress or status
          task end           end a task as completed, failed or canceled
          task list          list the tasks the board holds
          task show R        show task R
          status             show aiden-board's health

        Options (anywhere on the line):

        """ + globalOptions + """

            Exit status: 0 ok, 64 usage error, 65 input rejected by the daemon, 69 daemon unreachable,
            1 any other failure. Run 'aidenctl <command> --help' for a command's options.

            """

    private static let taskUsage = """
        usage: aidenctl [--socket PATH] [--json] task start|update|end|list|show [options]

        Commands:
          task start --title T [...]                    start a task, print its request id
          task update --id R [...]                      change a running task
          task end --id R --status completed|failed|canceled [--error TEXT]
          task list                                     list tasks
          task show R                                   show one task

        Run 'aidenctl task <command> --help' for a command's options.

        """

    private static let startUsage = """
        usage: aidenctl [--socket PATH] [--json] task start --title T [--request-id R] [--phone-id P]
                        [--step S] [--phase P] [--progress F]

        Start a task. Prints a short summary, then the request id alone on the last line
        (with --json: one object with "request_id" and "live_activity").

        Options:
          --title T          the task's title on the card (required, not empty)
          --request-id R     the request id to use (default: the daemon makes one)
          --phone-id P       show the task only on phone P (default: on any phone)
          --step S           the current step, e.g. "Checking the current screen"
          --phase P          planning, observing, acting, phone_bridge, waiting_app,
                             waiting_user, verifying or answering
          --progress F       progress as a number from 0 to 1, e.g. 0.25

        """ + globalOptions

    private static let updateUsage = """
        usage: aidenctl [--socket PATH] [--json] task update --id R [--step S] [--phase P] [--action A]
                        [--target T] [--app A] [--tool N] [--progress F] [--status needs_app|running]
                        [--expected-revision N]

        Change a task that has not ended. Only the fields given change; an empty value ("")
        clears a text field. Prints the task as it is now.

        Options:
          --id R                   the task's request id (required)
          --step S                 the current step
          --phase P                planning, observing, acting, phone_bridge, waiting_app,
                                   waiting_user, verifying or answering
          --action A               the current action, e.g. observe_screen, request_user_input
          --target T               what the action works on
          --app A                  the app in use on the phone
          --tool N                 the last tool the agent called
          --progress F             progress as a number from 0 to 1
          --status S               needs_app or running (end a task with 'aidenctl task end')
          --expected-revision N    only apply if the task is still at revision N (else exit 1, 409)

        """ + globalOptions

    private static let endUsage = """
        usage: aidenctl [--socket PATH] [--json] task end --id R --status completed|failed|canceled
                        [--error TEXT]

        End a task. An ended task is final: later updates are refused. Prints the final task.

        Options:
          --id R             the task's request id (required)
          --status S         completed, failed or canceled (required)
          --error TEXT       what went wrong, shown on the card (default: empty)

        """ + globalOptions

    private static let listUsage = """
        usage: aidenctl [--socket PATH] [--json] task list

        List the tasks aiden-board holds: id, status, phase, progress and title.

        Options:

        """ + globalOptions

    private static let showUsage = """
        usage: aidenctl [--socket PATH] [--json] task show R

        Show every field of task R.

        Options:

        """ + globalOptions

    private static let statusUsage = """
        usage: aidenctl [--socket PATH] [--json] status

        Show aiden-board's health: version, uptime, whether Live Activities are enabled,
        task counts and the Wake state, as the daemon reports them.

        Options:

        """ + globalOptions
}
