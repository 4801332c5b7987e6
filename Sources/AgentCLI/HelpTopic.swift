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
        }
    }
}
