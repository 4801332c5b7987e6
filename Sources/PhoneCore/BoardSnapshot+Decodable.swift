/// Permissive decoding (see `BoardSnapshot`): only a missing, non-string or empty `request_id` fails.
extension BoardSnapshot: Decodable {
    enum CodingKeys: String, CodingKey {
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
        let requestID = try container.decode(String.self, forKey: .requestID)
        guard !requestID.isEmpty else {
            throw DecodingError.dataCorruptedError(
                forKey: .requestID, in: container, debugDescription: "must not be empty")
        }
        self.init(
            requestID: requestID,
            phoneID: container.lenient(String.self, forKey: .phoneID),
            status: container.lenient(String.self, forKey: .status).map(BoardTaskStatus.init(rawValue:)),
            phase: container.lenient(String.self, forKey: .phase).map(BoardTaskPhase.init(rawValue:)),
            taskTitle: container.lenient(String.self, forKey: .taskTitle),
            currentStep: container.lenient(String.self, forKey: .currentStep),
            currentAction: container.lenient(String.self, forKey: .currentAction),
            currentTarget: container.lenient(String.self, forKey: .currentTarget),
            currentApp: container.lenient(String.self, forKey: .currentApp),
            lastToolName: container.lenient(String.self, forKey: .lastToolName),
            lastError: container.lenient(String.self, forKey: .lastError),
            progress: container.lenient(Double.self, forKey: .progress).flatMap { $0.isFinite ? $0 : nil },
            showsProgress: container.lenient(Bool.self, forKey: .showsProgress),
            canStop: container.lenient(Bool.self, forKey: .canStop),
            requiresApp: container.lenient(Bool.self, forKey: .requiresApp),
            startedAt: container.lenient(String.self, forKey: .startedAt),
            updatedAt: container.lenient(String.self, forKey: .updatedAt),
            endedAt: container.lenient(String.self, forKey: .endedAt),
            revision: container.lenient(UInt64.self, forKey: .revision))
    }
}

extension KeyedDecodingContainer {
    /// The value, or nil when the key is absent, null, or holds another type.
    func lenient<T: Decodable>(_ type: T.Type, forKey key: Key) -> T? {
        (try? decodeIfPresent(type, forKey: key)) ?? nil
    }
}
