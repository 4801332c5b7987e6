/// The phone's view of a task snapshot (CONTRACT §4).
///
/// Permissive on purpose: the phone must keep showing a card when a newer board adds fields or
/// enum values, so everything but `request_id` is optional, unknown keys are ignored, unknown
/// enum values are kept as raw strings, and an optional field of the wrong type reads as absent.
/// Strings are kept as sent; renderers sanitize them for the terminal.
package struct BoardSnapshot: Sendable, Equatable {
    package var requestID: String
    package var phoneID: String?
    package var status: BoardTaskStatus?
    package var phase: BoardTaskPhase?
    package var taskTitle: String?
    package var currentStep: String?
    package var currentAction: String?
    package var currentTarget: String?
    package var currentApp: String?
    package var lastToolName: String?
    package var lastError: String?
    package var progress: Double?
    package var showsProgress: Bool?
    package var canStop: Bool?
    package var requiresApp: Bool?
    /// ISO-8601 timestamps as the board wrote them; the card does not compute with them.
    package var startedAt: String?
    package var updatedAt: String?
    package var endedAt: String?
    package var revision: UInt64?

    package init(
        requestID: String, phoneID: String? = nil, status: BoardTaskStatus? = nil, phase: BoardTaskPhase? = nil,
        taskTitle: String? = nil, currentStep: String? = nil, currentAction: String? = nil,
        currentTarget: String? = nil, currentApp: String? = nil, lastToolName: String? = nil,
        lastError: String? = nil, progress: Double? = nil, showsProgress: Bool? = nil, canStop: Bool? = nil,
        requiresApp: Bool? = nil, startedAt: String? = nil, updatedAt: String? = nil, endedAt: String? = nil,
        revision: UInt64? = nil
    ) {
        self.requestID = requestID
        self.phoneID = phoneID
        self.status = status
        self.phase = phase
        self.taskTitle = taskTitle
        self.currentStep = currentStep
        self.currentAction = currentAction
        self.currentTarget = currentTarget
        self.currentApp = currentApp
        self.lastToolName = lastToolName
        self.lastError = lastError
        self.progress = progress
        self.showsProgress = showsProgress
        self.canStop = canStop
        self.requiresApp = requiresApp
        self.startedAt = startedAt
        self.updatedAt = updatedAt
        self.endedAt = endedAt
        self.revision = revision
    }

    /// The `current_action` that, in phase `waiting_user`, means a person must act (a handoff).
    package static let requestUserInput = "request_user_input"

    /// A person must act on the phone: `phase == waiting_user` with `current_action == request_user_input`.
    package var isHandoff: Bool {
        phase == .waitingUser && currentAction == Self.requestUserInput
    }
}
