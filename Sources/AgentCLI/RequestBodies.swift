import FoundationEssentials
import WireFormat

/// JSON bodies of the write requests, with the protocol's names from `SnapshotKey`/`WriteKey`. A nil
/// field is left out, so the daemon changes only what was given.
enum RequestBodies {
    /// The snapshot fields a start or an update may carry, all optional here.
    struct Fields {
        var taskTitle: String?
        var requestID: String?
        var phoneID: String?
        var status: TaskStatus?
        var phase: TaskPhase?
        var currentStep: String?
        var currentAction: String?
        var currentTarget: String?
        var currentApp: String?
        var lastToolName: String?
        var lastError: String?
        var toolStatus: String?
        var locale: String?
        var progress: Double?
        var showsProgress: Bool?
        var canStop: Bool?
        var requiresApp: Bool?
        var staleAfterSeconds: UInt64?
        var abandonAfterSeconds: UInt64?

        func encode(into container: inout KeyedEncodingContainer<SnapshotKey>) throws {
            try container.encodeIfPresent(taskTitle, forKey: .taskTitle)
            try container.encodeIfPresent(requestID, forKey: .requestID)
            try container.encodeIfPresent(phoneID, forKey: .phoneID)
            try container.encodeIfPresent(status, forKey: .status)
            try container.encodeIfPresent(phase, forKey: .phase)
            try container.encodeIfPresent(currentStep, forKey: .currentStep)
            try container.encodeIfPresent(currentAction, forKey: .currentAction)
            try container.encodeIfPresent(currentTarget, forKey: .currentTarget)
            try container.encodeIfPresent(currentApp, forKey: .currentApp)
            try container.encodeIfPresent(lastToolName, forKey: .lastToolName)
            try container.encodeIfPresent(lastError, forKey: .lastError)
            try container.encodeIfPresent(toolStatus, forKey: .toolStatus)
            try container.encodeIfPresent(locale, forKey: .locale)
            try container.encodeIfPresent(progress, forKey: .progress)
            try container.encodeIfPresent(showsProgress, forKey: .showsProgress)
            try container.encodeIfPresent(canStop, forKey: .canStop)
            try container.encodeIfPresent(requiresApp, forKey: .requiresApp)
            try container.encodeIfPresent(staleAfterSeconds, forKey: .staleAfterSeconds)
            try container.encodeIfPresent(abandonAfterSeconds, forKey: .abandonAfterSeconds)
        }
    }

    struct Start: Encodable {
        var fields: Fields

        init(
            taskTitle: String, requestID: String?, phoneID: String?, status: TaskStatus?, phase: TaskPhase?,
            currentStep: String?, currentAction: String?, currentTarget: String?, currentApp: String?,
            lastToolName: String?, lastError: String?, progress: Double?, showsProgress: Bool?, canStop: Bool?,
            requiresApp: Bool?, staleAfterSeconds: UInt64?, abandonAfterSeconds: UInt64?
        ) {
            fields = Fields(
                taskTitle: taskTitle, requestID: requestID, phoneID: phoneID, status: status, phase: phase,
                currentStep: currentStep, currentAction: currentAction, currentTarget: currentTarget,
                currentApp: currentApp, lastToolName: lastToolName, lastError: lastError, progress: progress,
                showsProgress: showsProgress, canStop: canStop, requiresApp: requiresApp,
                staleAfterSeconds: staleAfterSeconds, abandonAfterSeconds: abandonAfterSeconds)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: SnapshotKey.self)
            try fields.encode(into: &container)
        }
    }

    struct Update: Encodable {
        var fields: Fields
        var expectedRevision: UInt64?

        init(
            taskTitle: String?, phoneID: String?, status: TaskStatus?, phase: TaskPhase?, currentStep: String?,
            currentAction: String?, currentTarget: String?, currentApp: String?, lastToolName: String?,
            lastError: String?, progress: Double?, showsProgress: Bool?, canStop: Bool?, requiresApp: Bool?,
            staleAfterSeconds: UInt64?, abandonAfterSeconds: UInt64?, expectedRevision: UInt64?
        ) {
            fields = Fields(
                taskTitle: taskTitle, phoneID: phoneID, status: status, phase: phase, currentStep: currentStep,
                currentAction: currentAction, currentTarget: currentTarget, currentApp: currentApp,
                lastToolName: lastToolName, lastError: lastError, progress: progress, showsProgress: showsProgress,
                canStop: canStop, requiresApp: requiresApp, staleAfterSeconds: staleAfterSeconds,
                abandonAfterSeconds: abandonAfterSeconds)
            self.expectedRevision = expectedRevision
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: SnapshotKey.self)
            try fields.encode(into: &container)
            var write = encoder.container(keyedBy: WriteKey.self)
            try write.encodeIfPresent(expectedRevision, forKey: .expectedRevision)
        }
    }

    struct End: Encodable {
        var status: TaskStatus
        var lastError: String
        var dismissAfterSeconds: UInt64?
        var expectedRevision: UInt64?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: SnapshotKey.self)
            try container.encode(status, forKey: .status)
            try container.encode(lastError, forKey: .lastError)
            try container.encodeIfPresent(dismissAfterSeconds, forKey: .dismissAfterSeconds)
            var write = encoder.container(keyedBy: WriteKey.self)
            try write.encodeIfPresent(expectedRevision, forKey: .expectedRevision)
        }
    }

    /// Sorted keys: the same command always sends the same bytes.
    static func encode(_ body: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding these flat structs of strings and finite numbers cannot fail; an empty object is still valid.
        return (try? Array(encoder.encode(body))) ?? Array("{}".utf8)
    }
}
