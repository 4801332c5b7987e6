/// A task snapshot (docs/protocol.md §4) as the phone and aidenctl read it, tolerant on purpose: both must
/// keep working against a newer (or older) board. Every field is optional, unknown members are
/// ignored, a member of the wrong type reads as absent, unknown status, phase and transition names
/// are kept as sent (`OpenEnum`), and strings are kept as sent (renderers sanitize them).
///
/// The board writes the same members through `TaskSnapshot` with strict rules; both take their
/// names from `SnapshotKey`.
package struct SnapshotView: Sendable, Hashable {
    package var requestID: String?
    package var phoneID: String?
    package var status: OpenEnum<TaskStatus>?
    package var phase: OpenEnum<TaskPhase>?
    package var taskTitle: String?
    package var currentStep: String?
    package var currentAction: String?
    package var currentTarget: String?
    package var currentApp: String?
    package var lastToolName: String?
    package var lastError: String?
    /// The tool line, and when it began (as the board wrote it); nil from a board that sends neither.
    package var toolStatus: String?
    package var toolStartedAt: String?
    package var locale: String?
    /// Finite when present (0...1 from a well-behaved board; shown as sent otherwise).
    package var progress: Double?
    package var showsProgress: Bool?
    package var canStop: Bool?
    package var requiresApp: Bool?
    package var staleAfterSeconds: UInt64?
    package var abandonAfterSeconds: UInt64?
    /// Present while the board has had no news from the agent for `stale_after_seconds`.
    package var staleSince: String?
    /// ISO-8601 timestamps as the board wrote them; readers show them, they do not compute with them.
    package var startedAt: String?
    package var updatedAt: String?
    package var endedAt: String?
    package var dismissAfterSeconds: UInt64?
    package var dismissedAt: String?
    package var revision: UInt64?
    /// The person's latest answer from the phone; nil when there is none (or an old board sent none).
    package var answer: AnswerView?

    package init(
        requestID: String? = nil, phoneID: String? = nil, status: OpenEnum<TaskStatus>? = nil,
        phase: OpenEnum<TaskPhase>? = nil, taskTitle: String? = nil, currentStep: String? = nil,
        currentAction: String? = nil, currentTarget: String? = nil, currentApp: String? = nil,
        lastToolName: String? = nil, lastError: String? = nil, progress: Double? = nil,
        showsProgress: Bool? = nil, canStop: Bool? = nil, requiresApp: Bool? = nil, startedAt: String? = nil,
        updatedAt: String? = nil, endedAt: String? = nil, revision: UInt64? = nil
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

    /// A person must act on the phone (the board's `handoff` transition fires on entering this).
    package var isAwaitingUser: Bool {
        Handoff.isAwaitingUser(phase: phase?.known, currentAction: currentAction)
    }
}

/// Decoding fails only when the value is not an object; encoding writes the members present.
extension SnapshotView: Codable {
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: SnapshotKey.self)
        func text(_ key: SnapshotKey) -> String? { container.lenient(String.self, forKey: key) }
        func flag(_ key: SnapshotKey) -> Bool? { container.lenient(Bool.self, forKey: key) }
        self.init()
        for key in SnapshotKey.allCases {
            switch key {
            case .requestID: requestID = text(key)
            case .phoneID: phoneID = text(key)
            case .status: status = text(key).map(OpenEnum.init(rawValue:))
            case .phase: phase = text(key).map(OpenEnum.init(rawValue:))
            case .taskTitle: taskTitle = text(key)
            case .currentStep: currentStep = text(key)
            case .currentAction: currentAction = text(key)
            case .currentTarget: currentTarget = text(key)
            case .currentApp: currentApp = text(key)
            case .lastToolName: lastToolName = text(key)
            case .lastError: lastError = text(key)
            case .toolStatus: toolStatus = text(key)
            case .toolStartedAt: toolStartedAt = text(key)
            case .locale: locale = text(key)
            case .progress: progress = container.lenient(Double.self, forKey: key).flatMap { $0.isFinite ? $0 : nil }
            case .showsProgress: showsProgress = flag(key)
            case .canStop: canStop = flag(key)
            case .requiresApp: requiresApp = flag(key)
            case .staleAfterSeconds: staleAfterSeconds = container.lenient(UInt64.self, forKey: key)
            case .abandonAfterSeconds: abandonAfterSeconds = container.lenient(UInt64.self, forKey: key)
            case .staleSince: staleSince = text(key)
            case .startedAt: startedAt = text(key)
            case .updatedAt: updatedAt = text(key)
            case .endedAt: endedAt = text(key)
            case .dismissAfterSeconds: dismissAfterSeconds = container.lenient(UInt64.self, forKey: key)
            case .dismissedAt: dismissedAt = text(key)
            case .revision: revision = container.lenient(UInt64.self, forKey: key)
            case .answer: answer = container.lenient(AnswerView.self, forKey: key)
            }
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: SnapshotKey.self)
        for key in SnapshotKey.allCases {
            switch key {
            case .requestID: try container.encodeIfPresent(requestID, forKey: key)
            case .phoneID: try container.encodeIfPresent(phoneID, forKey: key)
            case .status: try container.encodeIfPresent(status, forKey: key)
            case .phase: try container.encodeIfPresent(phase, forKey: key)
            case .taskTitle: try container.encodeIfPresent(taskTitle, forKey: key)
            case .currentStep: try container.encodeIfPresent(currentStep, forKey: key)
            case .currentAction: try container.encodeIfPresent(currentAction, forKey: key)
            case .currentTarget: try container.encodeIfPresent(currentTarget, forKey: key)
            case .currentApp: try container.encodeIfPresent(currentApp, forKey: key)
            case .lastToolName: try container.encodeIfPresent(lastToolName, forKey: key)
            case .lastError: try container.encodeIfPresent(lastError, forKey: key)
            case .toolStatus: try container.encodeIfPresent(toolStatus, forKey: key)
            case .toolStartedAt: try container.encodeIfPresent(toolStartedAt, forKey: key)
            case .locale: try container.encodeIfPresent(locale, forKey: key)
            case .progress: try container.encodeIfPresent(progress, forKey: key)
            case .showsProgress: try container.encodeIfPresent(showsProgress, forKey: key)
            case .canStop: try container.encodeIfPresent(canStop, forKey: key)
            case .requiresApp: try container.encodeIfPresent(requiresApp, forKey: key)
            case .staleAfterSeconds: try container.encodeIfPresent(staleAfterSeconds, forKey: key)
            case .abandonAfterSeconds: try container.encodeIfPresent(abandonAfterSeconds, forKey: key)
            case .staleSince: try container.encodeIfPresent(staleSince, forKey: key)
            case .startedAt: try container.encodeIfPresent(startedAt, forKey: key)
            case .updatedAt: try container.encodeIfPresent(updatedAt, forKey: key)
            case .endedAt: try container.encodeIfPresent(endedAt, forKey: key)
            case .dismissAfterSeconds: try container.encodeIfPresent(dismissAfterSeconds, forKey: key)
            case .dismissedAt: try container.encodeIfPresent(dismissedAt, forKey: key)
            case .revision: try container.encodeIfPresent(revision, forKey: key)
            case .answer: try container.encodeIfPresent(answer, forKey: key)
            }
        }
    }
}

extension KeyedDecodingContainer {
    /// The value, or nil when the key is absent, null, or holds another type.
    package func lenient<T: Decodable>(_ type: T.Type, forKey key: Key) -> T? {
        (try? decodeIfPresent(type, forKey: key)) ?? nil
    }
}
