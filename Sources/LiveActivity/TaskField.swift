import WireFormat

/// The JSON members an agent may write, with the rule each value must meet (limits in `TaskLimits`).
/// Their names are the shared `SnapshotKey`/`WriteKey` ones (see `key`).
///
/// `revision`, `started_at`, `updated_at` and `ended_at` are not here: the store owns them, so in a request
/// body they are ignored like any unknown key (a writer may send back a snapshot it read).
package enum TaskField: Sendable, CaseIterable {
    case requestID
    case phoneID
    case status
    case phase
    case taskTitle
    case currentStep
    case currentAction
    case currentTarget
    case currentApp
    case lastToolName
    case lastError
    case toolStatus
    case locale
    case progress
    case showsProgress
    case canStop
    case requiresApp
    case staleAfterSeconds
    case abandonAfterSeconds
    case dismissAfterSeconds
    case expectedRevision

    /// The member's key in the wire vocabulary.
    var key: JSONKey {
        switch self {
        case .requestID: JSONKey(SnapshotKey.requestID)
        case .phoneID: JSONKey(SnapshotKey.phoneID)
        case .status: JSONKey(SnapshotKey.status)
        case .phase: JSONKey(SnapshotKey.phase)
        case .taskTitle: JSONKey(SnapshotKey.taskTitle)
        case .currentStep: JSONKey(SnapshotKey.currentStep)
        case .currentAction: JSONKey(SnapshotKey.currentAction)
        case .currentTarget: JSONKey(SnapshotKey.currentTarget)
        case .currentApp: JSONKey(SnapshotKey.currentApp)
        case .lastToolName: JSONKey(SnapshotKey.lastToolName)
        case .lastError: JSONKey(SnapshotKey.lastError)
        case .toolStatus: JSONKey(SnapshotKey.toolStatus)
        case .locale: JSONKey(SnapshotKey.locale)
        case .progress: JSONKey(SnapshotKey.progress)
        case .showsProgress: JSONKey(SnapshotKey.showsProgress)
        case .canStop: JSONKey(SnapshotKey.canStop)
        case .requiresApp: JSONKey(SnapshotKey.requiresApp)
        case .staleAfterSeconds: JSONKey(SnapshotKey.staleAfterSeconds)
        case .abandonAfterSeconds: JSONKey(SnapshotKey.abandonAfterSeconds)
        case .dismissAfterSeconds: JSONKey(SnapshotKey.dismissAfterSeconds)
        case .expectedRevision: JSONKey(WriteKey.expectedRevision)
        }
    }

    /// The member's name as it appears in a body and in error messages.
    package var name: String { key.stringValue }

    /// How a string field is bounded; `nil` for fields that are not strings.
    var textRule: TextRule? {
        switch self {
        case .requestID: .identifier(allowEmpty: false)
        case .phoneID: .identifier(allowEmpty: true)
        case .taskTitle: .text(maxLength: TaskLimits.maxTitleLength, required: true, multiline: false)
        case .currentStep: .text(maxLength: TaskLimits.maxStepLength, required: false, multiline: false)
        case .currentAction, .currentTarget, .currentApp, .lastToolName, .toolStatus:
            .text(maxLength: TaskLimits.maxShortTextLength, required: false, multiline: false)
        case .locale: .languageTag
        case .lastError: .text(maxLength: TaskLimits.maxErrorLength, required: false, multiline: true)
        case .status, .phase, .progress, .showsProgress, .canStop, .requiresApp, .staleAfterSeconds,
            .abandonAfterSeconds, .dismissAfterSeconds, .expectedRevision:
            nil
        }
    }

    func error(_ message: String) -> TaskValidationError {
        TaskValidationError(field: name, message: message)
    }
}

enum TextRule: Sendable {
    /// `IdentifierRule`: characters from `A-Z a-z 0-9 . _ : -`, at most 128, safe in a URL path, a query
    /// string, a file name and a log line without escaping.
    case identifier(allowEmpty: Bool)
    /// At most `maxLength` Unicode scalars, no control characters (C0, DEL, C1; a multiline text may hold
    /// tab, line feed and carriage return) and no bidi controls (U+061C, U+200E/F, U+202A–U+202E,
    /// U+2066–U+2069), so no reader of a task is driven or misled by its text.
    case text(maxLength: Int, required: Bool, multiline: Bool)
    /// Empty, or a BCP 47 language tag in its common shape (`LanguageTag`): a phone may pick words and formats
    /// by it, so it is kept to letters, digits and hyphens.
    case languageTag
}
