/// A command (or command group) that has its own `--help` text.
package enum HelpTopic: String, CaseIterable, Sendable, Equatable {
    case main
    case task
    case taskStart
    case taskRun
    case taskUpdate
    case taskHeartbeat
    case taskEnd
    case taskList
    case taskShow
    case taskWait
    case events
    case status
    case mcp
    case hook
    case hookClaude
    case hookCodex
    case completion

    /// The words that name this command, e.g. `aidenctl task start`.
    package var commandLine: String {
        switch self {
        case .main: "aidenctl"
        case .task: "aidenctl task"
        case .taskStart: "aidenctl task start"
        case .taskRun: "aidenctl task run"
        case .taskUpdate: "aidenctl task update"
        case .taskHeartbeat: "aidenctl task heartbeat"
        case .taskEnd: "aidenctl task end"
        case .taskList: "aidenctl task list"
        case .taskShow: "aidenctl task show"
        case .taskWait: "aidenctl task wait"
        case .events: "aidenctl events"
        case .status: "aidenctl status"
        case .mcp: "aidenctl mcp"
        case .hook: "aidenctl hook"
        case .hookClaude: "aidenctl hook claude"
        case .hookCodex: "aidenctl hook codex"
        case .completion: "aidenctl completion"
        }
    }

    /// The words after `aidenctl` that name the command (`["task", "start"]`): what the parser matches and the
    /// completions offer.
    package var words: [String] { commandLine.split(separator: " ").dropFirst().map(String.init) }

    /// The commands one word below this one (`task` → `task start`, …), in declaration order.
    package var subcommands: [HelpTopic] {
        Self.allCases.filter { $0.words.count == words.count + 1 && Array($0.words.dropLast()) == words }
    }

    /// The command words as the main help lists them, with what follows them (`task update R`).
    var listing: String {
        switch self {
        case .taskRun: "task run -- CMD"
        case .taskUpdate, .taskHeartbeat, .taskEnd, .taskShow: words.joined(separator: " ") + " R"
        case .taskWait: "task wait R --for"
        case .hookCodex: "hook codex JSON"
        case .completion: "completion SHELL"
        default: words.joined(separator: " ")
        }
    }

    /// What the command does, in one line: the main help's list and the completions' descriptions.
    package var summary: String {
        switch self {
        case .main: "tell aiden-board what an AI agent is doing"
        case .task: "start, run, update, end, list, show or wait for tasks"
        case .taskStart: "start a task and print its request id (last line)"
        case .taskRun: "start a task, run CMD, end the task as CMD ends"
        case .taskUpdate: "change a task's step, phase, action, progress or status"
        case .taskHeartbeat: "tell the board the agent is still at work on R (no change)"
        case .taskEnd: "end a task as completed, failed or canceled"
        case .taskList: "list the tasks the board holds"
        case .taskShow: "show task R"
        case .taskWait: "wait until the person stops or answers R, or R ends"
        case .events: "print the board's task transitions (--follow: as they happen)"
        case .status: "show aiden-board's health"
        case .mcp: "serve the task tools to an AI agent over MCP (stdio)"
        case .hook: "report a coding agent's hook events as a task: claude or codex"
        case .hookClaude: "a Claude Code hook: its event (stdin) to the session's task"
        case .hookCodex: "Codex's notify: its turn (JSON argument) to the thread's task"
        case .completion: "print the bash, zsh or fish completion script"
        }
    }

    /// The word that asks for a command's help (`aidenctl help task start`) and what it does.
    static let helpWord = "help"
    static let helpSummary = "show the help of a command"
}
