import CommandLineSyntax
import WireFormat

/// Every `--option` aidenctl knows. All take a value except the flags.
enum OptionName: String, CaseIterable, Sendable, CommandLineOption {
    case socket
    case json
    case quiet
    case help
    case version
    case id
    case title
    case requestID = "request-id"
    case phoneID = "phone-id"
    case status
    case phase
    case step
    case action
    case target
    case app
    case tool
    /// `tool_status`: the card's tool line (`--tool` is `last_tool_name`).
    case toolStatus = "tool-status"
    case locale
    case error
    case progress
    case showsProgress = "shows-progress"
    case canStop = "can-stop"
    case requiresApp = "requires-app"
    case staleAfter = "stale-after"
    case abandonAfter = "abandon-after"
    case dismiss
    case expectedRevision = "expected-revision"
    case idempotencyKey = "idempotency-key"
    case progressFromStdout = "progress-from-stdout"
    case since
    case follow
    /// `task wait --for stop|answer|end`.
    case waitFor = "for"
    case timeout

    var takesValue: Bool {
        switch self {
        case .json, .quiet, .help, .version, .progressFromStdout, .follow: false
        default: true
        }
    }

    /// `-h` and `-q`.
    static func flag(spelledBy letter: Character) -> OptionName? {
        switch letter {
        case "h": .help
        case "q": .quiet
        default: nil
        }
    }

    /// The snapshot fields a start sets, in the order `--help` lists them.
    static let startFields: [OptionName] = [
        .requestID, .phoneID, .status, .phase, .step, .action, .target, .app, .tool, .toolStatus, .locale, .error,
        .progress, .showsProgress, .canStop, .requiresApp, .staleAfter, .abandonAfter,
    ]

    /// The snapshot fields an update changes; at least one must be given.
    static let updateFields: [OptionName] = [
        .title, .phoneID, .status, .phase, .step, .action, .target, .app, .tool, .toolStatus, .locale, .error,
        .progress, .showsProgress, .canStop, .requiresApp, .staleAfter, .abandonAfter,
    ]

    /// The options every command takes.
    static let everywhere: Set<OptionName> = [.socket, .help, .version]

    /// The options a command accepts besides `everywhere`'s.
    static func accepted(by topic: HelpTopic) -> Set<OptionName> {
        switch topic {
        case .taskStart: Set([.title, .idempotencyKey, .json, .quiet] + startFields)
        case .taskRun: Set([.title, .idempotencyKey, .quiet, .progressFromStdout] + startFields)
        case .taskUpdate: Set([.id, .expectedRevision, .idempotencyKey, .json, .quiet] + updateFields)
        case .taskEnd: [.id, .status, .error, .dismiss, .expectedRevision, .idempotencyKey, .json, .quiet]
        case .taskHeartbeat: [.id, .json, .quiet]
        case .taskShow: [.id, .json]
        case .taskWait: [.id, .waitFor, .timeout, .json]
        case .events: [.since, .follow, .json]
        case .main, .task, .taskList, .status: [.json]
        case .completion: []
        case .mcp, .hook, .hookCodex: []
        case .hookClaude: [.timeout]
        }
    }

    /// Every option `topic` takes, in declaration order: what its completion offers.
    static func all(of topic: HelpTopic) -> [OptionName] {
        let accepted = accepted(by: topic).union(everywhere)
        return allCases.filter(accepted.contains)
    }

    /// What the value of this option is in `topic`: the closed sets the parser accepts (`OptionValues` checks
    /// them against the same `WireFormat` enums), a path, or free text.
    func completionValue(in topic: HelpTopic) -> CompletionTable.Value {
        guard takesValue else { return .none }
        switch self {
        case .socket: return .file
        case .status:
            let statuses = topic == .taskEnd ? TaskStatus.terminal : TaskStatus.active
            return .choices(statuses.map(\.rawValue))
        case .phase: return .choices(TaskPhase.allCases.map(\.rawValue))
        case .showsProgress, .canStop, .requiresApp: return .choices(["true", "false"])
        case .dismiss: return .choices(["immediate", "default"])  // or after:SECONDS, typed
        case .waitFor: return .choices(WaitTarget.allCases.map(\.rawValue))
        default: return .text
        }
    }

    /// What the option does, in one line, for the completions' descriptions (`--help` says it in full).
    var summary: String {
        switch self {
        case .socket: "aiden-board's agent socket"
        case .json: "print the daemon's answer as one JSON object"
        case .quiet: "print nothing on success"
        case .help: "show the help"
        case .version: "print aidenctl's version"
        case .id: "the task's request id"
        case .title: "the task's title on the card"
        case .requestID: "the request id to use"
        case .phoneID: "show the task only on this phone"
        case .status: "the task's status"
        case .phase: "the task's phase"
        case .step: "the current step"
        case .action: "the current action"
        case .target: "what the action works on"
        case .app: "the app in use on the phone"
        case .tool: "the last tool the agent called"
        case .toolStatus: "what the tool is doing now (the card's tool line; empty clears it)"
        case .locale: "the language of the task's texts, a BCP 47 tag such as en-US"
        case .error: "an error to show on the card"
        case .progress: "progress from 0 to 1"
        case .showsProgress: "whether the card shows a progress bar"
        case .canStop: "whether the person may stop the task"
        case .requiresApp: "whether the task needs the phone's app"
        case .staleAfter: "seconds without news before the card says so"
        case .abandonAfter: "seconds without news before the board ends the task"
        case .dismiss: "how long the ended card stays: immediate, default or after:SECONDS"
        case .expectedRevision: "only apply at this revision"
        case .idempotencyKey: "the write's idempotency key"
        case .progressFromStdout: "read PROGRESS lines on the command's stdout"
        case .since: "only events after this one"
        case .follow: "keep printing new events"
        case .waitFor: "what to wait for: stop, answer or end"
        case .timeout: "give up after this many seconds"
        }
    }
}
