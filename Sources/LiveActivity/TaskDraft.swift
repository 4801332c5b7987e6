import FoundationEssentials
import WireFormat

/// The body of a start (`POST /v1/tasks`): only `task_title` is required.
///
/// Defaults for what is not given: a generated `request_id`, `phone_id` empty (any phone), `status` running,
/// `phase` planning, texts empty, `progress` 0, `shows_progress` true exactly when `progress` is given,
/// `can_stop` and `requires_app` false, `stale_after_seconds` 300 and `abandon_after_seconds` 3600. `status`
/// may only be running or needs_app.
package struct TaskDraft: Sendable, Hashable {
    package var requestID: String?
    package var phoneID: String?
    package var status: TaskStatus?
    package var phase: TaskPhase?
    package var taskTitle: String
    package var currentStep: String?
    package var currentAction: String?
    package var currentTarget: String?
    package var currentApp: String?
    package var lastToolName: String?
    package var lastError: String?
    /// The tool line; empty clears it. The store stamps `tool_started_at` when it changes.
    package var toolStatus: String?
    package var locale: String?
    package var progress: Double?
    package var showsProgress: Bool?
    package var canStop: Bool?
    package var requiresApp: Bool?
    package var staleAfterSeconds: Int?
    package var abandonAfterSeconds: Int?

    package init(
        taskTitle: String, requestID: String? = nil, phoneID: String? = nil, status: TaskStatus? = nil,
        phase: TaskPhase? = nil, currentStep: String? = nil, currentAction: String? = nil,
        currentTarget: String? = nil, currentApp: String? = nil, lastToolName: String? = nil,
        lastError: String? = nil, toolStatus: String? = nil, locale: String? = nil,
        progress: Double? = nil, showsProgress: Bool? = nil, canStop: Bool? = nil,
        requiresApp: Bool? = nil, staleAfterSeconds: Int? = nil, abandonAfterSeconds: Int? = nil
    ) {
        self.taskTitle = taskTitle
        self.requestID = requestID
        self.phoneID = phoneID
        self.status = status
        self.phase = phase
        self.currentStep = currentStep
        self.currentAction = currentAction
        self.currentTarget = currentTarget
        self.currentApp = currentApp
        self.lastToolName = lastToolName
        self.lastError = lastError
        self.toolStatus = toolStatus
        self.locale = locale
        self.progress = progress
        self.showsProgress = showsProgress
        self.canStop = canStop
        self.requiresApp = requiresApp
        self.staleAfterSeconds = staleAfterSeconds
        self.abandonAfterSeconds = abandonAfterSeconds
    }

    /// Decodes and validates a request body: unknown keys are ignored, known ones must be valid.
    package static func decode(from json: some Collection<UInt8>) throws(TaskValidationError) -> TaskDraft {
        let body = try JSONFields.parse(json)
        guard let title = try body.string(.taskTitle) else {
            throw TaskField.taskTitle.error("is required")
        }
        var draft = TaskDraft(taskTitle: title)
        draft.requestID = try body.string(.requestID)
        draft.phoneID = try body.string(.phoneID)
        draft.status = try body.status(allowed: TaskStatus.active)
        draft.phase = try body.phase()
        draft.currentStep = try body.string(.currentStep)
        draft.currentAction = try body.string(.currentAction)
        draft.currentTarget = try body.string(.currentTarget)
        draft.currentApp = try body.string(.currentApp)
        draft.lastToolName = try body.string(.lastToolName)
        draft.lastError = try body.string(.lastError)
        draft.toolStatus = try body.string(.toolStatus)
        draft.locale = try body.string(.locale)
        draft.progress = try body.progress()
        draft.showsProgress = try body.bool(.showsProgress)
        draft.canStop = try body.bool(.canStop)
        draft.requiresApp = try body.bool(.requiresApp)
        draft.staleAfterSeconds = try body.seconds(.staleAfterSeconds, in: TaskField.staleAfterRange)
        draft.abandonAfterSeconds = try body.seconds(.abandonAfterSeconds, in: TaskField.abandonAfterRange)
        try draft.validateStaleness()
        return draft
    }

    /// The same rules as `decode`, for drafts built in code; the store calls it on every start.
    package func validate() throws(TaskValidationError) {
        let texts: [(TaskField, String?)] = [
            (.requestID, requestID), (.phoneID, phoneID), (.taskTitle, taskTitle), (.currentStep, currentStep),
            (.currentAction, currentAction), (.currentTarget, currentTarget), (.currentApp, currentApp),
            (.lastToolName, lastToolName), (.lastError, lastError), (.toolStatus, toolStatus), (.locale, locale),
        ]
        for case let (field, text?) in texts {
            try field.check(text)
        }
        if let status {
            try TaskField.status.checkStatus(status, allowed: TaskStatus.active)
        }
        if let progress {
            try TaskField.checkProgress(progress)
        }
        try validateStaleness()
    }

    private func validateStaleness() throws(TaskValidationError) {
        try TaskField.checkStaleness(
            staleAfter: staleAfterSeconds ?? TaskLimits.defaultStaleAfterSeconds,
            abandonAfter: abandonAfterSeconds
                ?? max(TaskLimits.defaultAbandonAfterSeconds, staleAfterSeconds ?? 0))
    }

    /// The snapshot this draft starts, with the store's id, time and revision.
    func snapshot(requestID: String, now: Date, revision: UInt64) -> TaskSnapshot {
        TaskSnapshot(
            requestID: requestID, phoneID: phoneID ?? "", status: status ?? .running, phase: phase ?? .planning,
            taskTitle: taskTitle, currentStep: currentStep ?? "", currentAction: currentAction ?? "",
            currentTarget: currentTarget ?? "", currentApp: currentApp ?? "", lastToolName: lastToolName ?? "",
            lastError: lastError ?? "", toolStatus: toolStatus ?? "",
            toolStartedAt: (toolStatus ?? "").isEmpty ? nil : now, locale: locale ?? "", progress: progress ?? 0,
            showsProgress: showsProgress ?? (progress != nil),
            canStop: canStop ?? false, requiresApp: requiresApp ?? false,
            staleAfterSeconds: staleAfterSeconds ?? TaskLimits.defaultStaleAfterSeconds,
            abandonAfterSeconds: abandonAfterSeconds
                ?? max(TaskLimits.defaultAbandonAfterSeconds, staleAfterSeconds ?? 0),
            startedAt: now, updatedAt: now, endedAt: nil, revision: revision)
    }
}

/// Writes only the members that are set, for clients (aidenctl) that build a body in code.
extension TaskDraft: Encodable {
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        try container.encode(taskTitle, forKey: TaskField.taskTitle.key)
        try container.encodeIfPresent(requestID, forKey: TaskField.requestID.key)
        try container.encodeIfPresent(phoneID, forKey: TaskField.phoneID.key)
        try container.encodeIfPresent(status, forKey: TaskField.status.key)
        try container.encodeIfPresent(phase, forKey: TaskField.phase.key)
        try container.encodeIfPresent(currentStep, forKey: TaskField.currentStep.key)
        try container.encodeIfPresent(currentAction, forKey: TaskField.currentAction.key)
        try container.encodeIfPresent(currentTarget, forKey: TaskField.currentTarget.key)
        try container.encodeIfPresent(currentApp, forKey: TaskField.currentApp.key)
        try container.encodeIfPresent(lastToolName, forKey: TaskField.lastToolName.key)
        try container.encodeIfPresent(lastError, forKey: TaskField.lastError.key)
        try container.encodeIfPresent(toolStatus, forKey: TaskField.toolStatus.key)
        try container.encodeIfPresent(locale, forKey: TaskField.locale.key)
        try container.encodeIfPresent(progress, forKey: TaskField.progress.key)
        try container.encodeIfPresent(showsProgress, forKey: TaskField.showsProgress.key)
        try container.encodeIfPresent(canStop, forKey: TaskField.canStop.key)
        try container.encodeIfPresent(requiresApp, forKey: TaskField.requiresApp.key)
        try container.encodeIfPresent(staleAfterSeconds, forKey: TaskField.staleAfterSeconds.key)
        try container.encodeIfPresent(abandonAfterSeconds, forKey: TaskField.abandonAfterSeconds.key)
    }
}
