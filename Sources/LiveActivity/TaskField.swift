/// The JSON keys an agent may write, with the rule each value must meet (limits in `TaskLimits`).
///
/// `revision`, `started_at`, `updated_at` and `ended_at` are not here: the store owns them, so in a request
/// body they are ignored like any unknown key (a writer may send back a snapshot it read).
package enum TaskField: String, Sendable, CaseIterable {
    case requestID = "request_id"
    case phoneID = "phone_id"
    case status
    case phase
    case taskTitle = "task_title"
    case currentStep = "current_step"
    case currentAction = "current_action"
    case currentTarget = "current_target"
    case currentApp = "current_app"
    case lastToolName = "last_tool_name"
    case lastError = "last_error"
    case progress
    case showsProgress = "shows_progress"
    case canStop = "can_stop"
    case requiresApp = "requires_app"
    case expectedRevision = "expected_revision"

    /// How a string field is bounded; `nil` for fields that are not strings.
    var textRule: TextRule? {
        switch self {
        case .requestID: .identifier(allowEmpty: false)
        case .phoneID: .identifier(allowEmpty: true)
        case .taskTitle: .text(maxLength: TaskLimits.maxTitleLength, required: true, multiline: false)
        case .currentStep: .text(maxLength: TaskLimits.maxStepLength, required: false, multiline: false)
        case .currentAction, .currentTarget, .currentApp, .lastToolName:
            .text(maxLength: TaskLimits.maxShortTextLength, required: false, multiline: false)
        case .lastError: .text(maxLength: TaskLimits.maxErrorLength, required: false, multiline: true)
        case .status, .phase, .progress, .showsProgress, .canStop, .requiresApp, .expectedRevision: nil
        }
    }

    func error(_ message: String) -> TaskValidationError {
        TaskValidationError(field: rawValue, message: message)
    }
}

enum TextRule: Sendable {
    /// Characters from `A-Z a-z 0-9 . _ : -`, at most `TaskLimits.maxIdentifierLength`: safe in a URL path,
    /// a query string, a file name and a log line without escaping.
    case identifier(allowEmpty: Bool)
    /// At most `maxLength` Unicode scalars and no control characters (a multiline text may hold tab,
    /// line feed and carriage return), so the card renderer can print it as is.
    case text(maxLength: Int, required: Bool, multiline: Bool)
}
