import CommandLineSyntax

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
    case error
    case progress
    case showsProgress = "shows-progress"
    case canStop = "can-stop"
    case requiresApp = "requires-app"
    case staleAfter = "stale-after"
    case abandonAfter = "abandon-after"
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
        .requestID, .phoneID, .status, .phase, .step, .action, .target, .app, .tool, .error, .progress,
        .showsProgress, .canStop, .requiresApp, .staleAfter, .abandonAfter,
    ]

    /// The snapshot fields an update changes; at least one must be given.
    static let updateFields: [OptionName] = [
        .title, .phoneID, .status, .phase, .step, .action, .target, .app, .tool, .error, .progress, .showsProgress,
        .canStop, .requiresApp, .staleAfter, .abandonAfter,
    ]

    /// The options a command accepts besides `--socket`, `--help` and `--version`, which every command takes.
    static func accepted(by topic: HelpTopic) -> Set<OptionName> {
        switch topic {
        case .taskStart: Set([.title, .idempotencyKey, .json, .quiet] + startFields)
        case .taskRun: Set([.title, .idempotencyKey, .quiet, .progressFromStdout] + startFields)
        case .taskUpdate: Set([.id, .expectedRevision, .idempotencyKey, .json, .quiet] + updateFields)
        case .taskEnd: [.id, .status, .error, .expectedRevision, .idempotencyKey, .json, .quiet]
        case .taskHeartbeat: [.id, .json, .quiet]
        case .taskShow: [.id, .json]
        case .taskWait: [.id, .waitFor, .timeout, .json]
        case .events: [.since, .follow, .json]
        case .main, .task, .taskList, .status: [.json]
        }
    }
}
