import WireFormat

/// The body of an update (`PATCH /v1/tasks/{request_id}`): the members to change, all optional, plus an
/// optional `expected_revision` (the task's `revision` the writer last saw).
///
/// `status` may only be running or needs_app (ending goes through `TaskEnd`). `request_id`, `revision`
/// and the timestamps belong to the store and are ignored if sent, like unknown keys.
package struct TaskPatch: Sendable, Hashable {
    package var phoneID: String?
    package var status: TaskStatus?
    package var phase: TaskPhase?
    package var taskTitle: String?
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
    package var expectedRevision: UInt64?

    package init(
        phoneID: String? = nil, status: TaskStatus? = nil, phase: TaskPhase? = nil, taskTitle: String? = nil,
        currentStep: String? = nil, currentAction: String? = nil, currentTarget: String? = nil,
        currentApp: String? = nil, lastToolName: String? = nil, lastError: String? = nil,
        toolStatus: String? = nil, locale: String? = nil, progress: Double? = nil, showsProgress: Bool? = nil,
        canStop: Bool? = nil, requiresApp: Bool? = nil,
        staleAfterSeconds: Int? = nil, abandonAfterSeconds: Int? = nil, expectedRevision: UInt64? = nil
    ) {
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
        self.toolStatus = toolStatus
        self.locale = locale
        self.progress = progress
        self.showsProgress = showsProgress
        self.canStop = canStop
        self.requiresApp = requiresApp
        self.staleAfterSeconds = staleAfterSeconds
        self.abandonAfterSeconds = abandonAfterSeconds
        self.expectedRevision = expectedRevision
    }

    /// Decodes and validates a request body: unknown keys are ignored, known ones must be valid.
    package static func decode(from json: some Collection<UInt8>) throws(TaskValidationError) -> TaskPatch {
        let body = try JSONFields.parse(json)
        var patch = TaskPatch()
        patch.phoneID = try body.string(.phoneID)
        patch.status = try body.status(allowed: TaskStatus.active)
        patch.phase = try body.phase()
        patch.taskTitle = try body.string(.taskTitle)
        patch.currentStep = try body.string(.currentStep)
        patch.currentAction = try body.string(.currentAction)
        patch.currentTarget = try body.string(.currentTarget)
        patch.currentApp = try body.string(.currentApp)
        patch.lastToolName = try body.string(.lastToolName)
        patch.lastError = try body.string(.lastError)
        patch.toolStatus = try body.string(.toolStatus)
        patch.locale = try body.string(.locale)
        patch.progress = try body.progress()
        patch.showsProgress = try body.bool(.showsProgress)
        patch.canStop = try body.bool(.canStop)
        patch.requiresApp = try body.bool(.requiresApp)
        patch.staleAfterSeconds = try body.seconds(.staleAfterSeconds, in: TaskField.staleAfterRange)
        patch.abandonAfterSeconds = try body.seconds(.abandonAfterSeconds, in: TaskField.abandonAfterRange)
        patch.expectedRevision = try body.expectedRevision()
        return patch
    }

    /// The same rules as `decode`, for patches built in code; the store calls it on every update.
    package func validate() throws(TaskValidationError) {
        let texts: [(TaskField, String?)] = [
            (.phoneID, phoneID), (.taskTitle, taskTitle), (.currentStep, currentStep),
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
        if let staleAfterSeconds {
            try TaskField.staleAfterSeconds.checkSeconds(staleAfterSeconds, in: TaskField.staleAfterRange)
        }
        if let abandonAfterSeconds {
            try TaskField.abandonAfterSeconds.checkSeconds(abandonAfterSeconds, in: TaskField.abandonAfterRange)
        }
    }

    /// `snapshot` with the given members replaced; the store sets the time and revision.
    func applied(to snapshot: TaskSnapshot) -> TaskSnapshot {
        var result = snapshot
        result.phoneID = phoneID ?? result.phoneID
        result.status = status ?? result.status
        result.phase = phase ?? result.phase
        result.taskTitle = taskTitle ?? result.taskTitle
        result.currentStep = currentStep ?? result.currentStep
        result.currentAction = currentAction ?? result.currentAction
        result.currentTarget = currentTarget ?? result.currentTarget
        result.currentApp = currentApp ?? result.currentApp
        result.lastToolName = lastToolName ?? result.lastToolName
        result.lastError = lastError ?? result.lastError
        result.toolStatus = toolStatus ?? result.toolStatus
        result.locale = locale ?? result.locale
        result.progress = progress ?? result.progress
        result.showsProgress = showsProgress ?? result.showsProgress
        result.canStop = canStop ?? result.canStop
        result.requiresApp = requiresApp ?? result.requiresApp
        result.staleAfterSeconds = staleAfterSeconds ?? result.staleAfterSeconds
        result.abandonAfterSeconds = abandonAfterSeconds ?? result.abandonAfterSeconds
        return result
    }
}

/// Writes only the members that are set, for clients (aidenctl) that build a body in code.
extension TaskPatch: Encodable {
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        try container.encodeIfPresent(phoneID, forKey: TaskField.phoneID.key)
        try container.encodeIfPresent(status, forKey: TaskField.status.key)
        try container.encodeIfPresent(phase, forKey: TaskField.phase.key)
        try container.encodeIfPresent(taskTitle, forKey: TaskField.taskTitle.key)
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
        try container.encodeIfPresent(expectedRevision, forKey: TaskField.expectedRevision.key)
    }
}
