import FoundationEssentials

/// JSON bodies of the write requests, with the contract's snake_case names. A nil field is left out, so the
/// daemon changes only what was given.
enum RequestBodies {
    struct Start: Encodable {
        var taskTitle: String
        var requestID: String?
        var phoneID: String?
        var currentStep: String?
        var phase: String?
        var progress: Double?

        enum CodingKeys: String, CodingKey {
            case taskTitle = "task_title", requestID = "request_id", phoneID = "phone_id"
            case currentStep = "current_step", phase, progress
        }
    }

    struct Update: Encodable {
        var currentStep: String?
        var phase: String?
        var currentAction: String?
        var currentTarget: String?
        var currentApp: String?
        var lastToolName: String?
        var progress: Double?
        var status: String?
        var expectedRevision: UInt64?

        enum CodingKeys: String, CodingKey {
            case currentStep = "current_step", phase, currentAction = "current_action"
            case currentTarget = "current_target", currentApp = "current_app", lastToolName = "last_tool_name"
            case progress, status, expectedRevision = "expected_revision"
        }
    }

    struct End: Encodable {
        var status: String
        var lastError: String

        enum CodingKeys: String, CodingKey {
            case status, lastError = "last_error"
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
