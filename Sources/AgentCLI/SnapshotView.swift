/// The task snapshot of CONTRACT.md §4 as aidenctl reads it: every field optional, unknown fields ignored,
/// so a newer or older daemon still prints what it sends.
package struct SnapshotView: Decodable, Sendable, Equatable {
    package var requestID: String?
    package var phoneID: String?
    package var status: String?
    package var phase: String?
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
    package var startedAt: String?
    package var updatedAt: String?
    package var endedAt: String?
    package var revision: UInt64?

    enum CodingKeys: String, CodingKey {
        case requestID = "request_id", phoneID = "phone_id", status, phase, taskTitle = "task_title"
        case currentStep = "current_step", currentAction = "current_action", currentTarget = "current_target"
        case currentApp = "current_app", lastToolName = "last_tool_name", lastError = "last_error", progress
        case showsProgress = "shows_progress", canStop = "can_stop", requiresApp = "requires_app"
        case startedAt = "started_at", updatedAt = "updated_at", endedAt = "ended_at", revision
    }

    package init(
        requestID: String? = nil, status: String? = nil, phase: String? = nil, taskTitle: String? = nil,
        progress: Double? = nil, revision: UInt64? = nil
    ) {
        self.requestID = requestID
        self.status = status
        self.phase = phase
        self.taskTitle = taskTitle
        self.progress = progress
        self.revision = revision
    }

    /// Tolerant of a field with an unexpected type (it reads as absent) rather than failing the whole answer.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func text(_ key: CodingKeys) -> String? { try? container.decodeIfPresent(String.self, forKey: key) }
        func flag(_ key: CodingKeys) -> Bool? { try? container.decodeIfPresent(Bool.self, forKey: key) }
        requestID = text(.requestID)
        phoneID = text(.phoneID)
        status = text(.status)
        phase = text(.phase)
        taskTitle = text(.taskTitle)
        currentStep = text(.currentStep)
        currentAction = text(.currentAction)
        currentTarget = text(.currentTarget)
        currentApp = text(.currentApp)
        lastToolName = text(.lastToolName)
        lastError = text(.lastError)
        progress = try? container.decodeIfPresent(Double.self, forKey: .progress)
        showsProgress = flag(.showsProgress)
        canStop = flag(.canStop)
        requiresApp = flag(.requiresApp)
        startedAt = text(.startedAt)
        updatedAt = text(.updatedAt)
        endedAt = text(.endedAt)
        revision = try? container.decodeIfPresent(UInt64.self, forKey: .revision)
    }
}
