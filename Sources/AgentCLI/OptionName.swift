import CommandLineSyntax

/// Every `--option` aidenctl knows. All take a value except the two flags.
enum OptionName: String, CaseIterable, Sendable, CommandLineOption {
    case socket
    case json
    case help
    case title
    case requestID = "request-id"
    case phoneID = "phone-id"
    case step
    case phase
    case progress
    case id
    case action
    case target
    case app
    case tool
    case status
    case expectedRevision = "expected-revision"
    case error

    var takesValue: Bool { self != .json && self != .help }

    /// The options a command accepts besides the global `--socket`, `--json` and `--help`.
    static func accepted(by topic: HelpTopic) -> Set<OptionName> {
        switch topic {
        case .taskStart: [.title, .requestID, .phoneID, .step, .phase, .progress]
        case .taskUpdate:
            [.id, .step, .phase, .action, .target, .app, .tool, .progress, .status, .expectedRevision]
        case .taskEnd: [.id, .status, .error]
        case .main, .task, .taskList, .taskShow, .status: []
        }
    }
}
