import FoundationEssentials

/// The JSON of CONTRACT §4: snake_case keys, dates as ISO-8601 UTC strings, `ended_at` always present
/// (`null` while the task runs). Decoding ignores unknown keys; it is for trusted input (the state file,
/// the board's own answers); agent input goes through `TaskDraft`/`TaskPatch`/`TaskEnd`, which validate.
extension TaskSnapshot: Codable {
    package enum CodingKeys: String, CodingKey, CaseIterable {
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
        case startedAt = "started_at"
        case updatedAt = "updated_at"
        case endedAt = "ended_at"
        case revision
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        requestID = try container.decode(String.self, forKey: .requestID)
        phoneID = try container.decode(String.self, forKey: .phoneID)
        status = try container.decode(TaskStatus.self, forKey: .status)
        phase = try container.decode(TaskPhase.self, forKey: .phase)
        taskTitle = try container.decode(String.self, forKey: .taskTitle)
        currentStep = try container.decode(String.self, forKey: .currentStep)
        currentAction = try container.decode(String.self, forKey: .currentAction)
        currentTarget = try container.decode(String.self, forKey: .currentTarget)
        currentApp = try container.decode(String.self, forKey: .currentApp)
        lastToolName = try container.decode(String.self, forKey: .lastToolName)
        lastError = try container.decode(String.self, forKey: .lastError)
        progress = try container.decode(Double.self, forKey: .progress)
        showsProgress = try container.decode(Bool.self, forKey: .showsProgress)
        canStop = try container.decode(Bool.self, forKey: .canStop)
        requiresApp = try container.decode(Bool.self, forKey: .requiresApp)
        startedAt = try container.decodeTimestamp(forKey: .startedAt)
        updatedAt = try container.decodeTimestamp(forKey: .updatedAt)
        endedAt = try container.decodeNil(forKey: .endedAt) ? nil : container.decodeTimestamp(forKey: .endedAt)
        revision = try container.decode(UInt64.self, forKey: .revision)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(requestID, forKey: .requestID)
        try container.encode(phoneID, forKey: .phoneID)
        try container.encode(status, forKey: .status)
        try container.encode(phase, forKey: .phase)
        try container.encode(taskTitle, forKey: .taskTitle)
        try container.encode(currentStep, forKey: .currentStep)
        try container.encode(currentAction, forKey: .currentAction)
        try container.encode(currentTarget, forKey: .currentTarget)
        try container.encode(currentApp, forKey: .currentApp)
        try container.encode(lastToolName, forKey: .lastToolName)
        try container.encode(lastError, forKey: .lastError)
        try container.encode(progress, forKey: .progress)
        try container.encode(showsProgress, forKey: .showsProgress)
        try container.encode(canStop, forKey: .canStop)
        try container.encode(requiresApp, forKey: .requiresApp)
        try container.encode(Timestamp.format(startedAt), forKey: .startedAt)
        try container.encode(Timestamp.format(updatedAt), forKey: .updatedAt)
        if let endedAt {
            try container.encode(Timestamp.format(endedAt), forKey: .endedAt)
        } else {
            try container.encodeNil(forKey: .endedAt)
        }
        try container.encode(revision, forKey: .revision)
    }

    /// Bytes of this snapshot as JSON with `/` escaped as `\/` (JSONEncoder's default and the longer form),
    /// so the 4 KiB bound holds whichever form the HTTP layer writes. `Int.max` if it cannot be encoded.
    package var encodedByteCount: Int {
        (try? JSONEncoder().encode(self).count) ?? Int.max
    }
}

extension KeyedDecodingContainer {
    func decodeTimestamp(forKey key: Key) throws -> Date {
        let text = try decode(String.self, forKey: key)
        guard let date = Timestamp.parse(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "expected an ISO-8601 UTC timestamp, got \"\(text)\"")
        }
        return date
    }
}

/// How this module's types are meant to be written: keys sorted (stable bytes, so one encoding per
/// revision can be cached and compared) and `/` unescaped.
package enum LiveActivityJSON {
    package static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
