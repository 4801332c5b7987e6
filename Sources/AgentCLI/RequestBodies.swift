import FoundationEssentials
import WireFormat

/// JSON bodies of the write requests, with the contract's names from `SnapshotKey`/`WriteKey`. A nil
/// field is left out, so the daemon changes only what was given.
enum RequestBodies {
    struct Start: Encodable {
        var taskTitle: String
        var requestID: String?
        var phoneID: String?
        var currentStep: String?
        var phase: TaskPhase?
        var progress: Double?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: SnapshotKey.self)
            try container.encode(taskTitle, forKey: .taskTitle)
            try container.encodeIfPresent(requestID, forKey: .requestID)
            try container.encodeIfPresent(phoneID, forKey: .phoneID)
            try container.encodeIfPresent(currentStep, forKey: .currentStep)
            try container.encodeIfPresent(phase, forKey: .phase)
            try container.encodeIfPresent(progress, forKey: .progress)
        }
    }

    struct Update: Encodable {
        var currentStep: String?
        var phase: TaskPhase?
        var currentAction: String?
        var currentTarget: String?
        var currentApp: String?
        var lastToolName: String?
        var progress: Double?
        var status: TaskStatus?
        var expectedRevision: UInt64?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: SnapshotKey.self)
            try container.encodeIfPresent(currentStep, forKey: .currentStep)
            try container.encodeIfPresent(phase, forKey: .phase)
            try container.encodeIfPresent(currentAction, forKey: .currentAction)
            try container.encodeIfPresent(currentTarget, forKey: .currentTarget)
            try container.encodeIfPresent(currentApp, forKey: .currentApp)
            try container.encodeIfPresent(lastToolName, forKey: .lastToolName)
            try container.encodeIfPresent(progress, forKey: .progress)
            try container.encodeIfPresent(status, forKey: .status)
            var write = encoder.container(keyedBy: WriteKey.self)
            try write.encodeIfPresent(expectedRevision, forKey: .expectedRevision)
        }
    }

    struct End: Encodable {
        var status: TaskStatus
        var lastError: String

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: SnapshotKey.self)
            try container.encode(status, forKey: .status)
            try container.encode(lastError, forKey: .lastError)
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
