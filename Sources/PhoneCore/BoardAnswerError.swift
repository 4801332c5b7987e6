/// Why an answer from the board could not be read. Names the JSON field (`live_activity.request_id`,
/// `events[2].id`) so a board bug can be found from the phone's log line alone.
package struct BoardAnswerError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: String, Sendable, Equatable {
        /// The body is not JSON (or not a JSON object).
        case notJSON = "not_json"
        case missingField = "missing_field"
        case wrongType = "wrong_type"
        case invalidValue = "invalid_value"
        /// `status` is neither `ok`, `not_found` nor `error`.
        case unexpectedStatus = "unexpected_status"
        /// The board answered with its error body: `{"status":"error","error":{…}}`.
        case boardError = "board_error"
    }

    package var kind: Kind
    /// Dotted path of the field, nil for the body as a whole.
    package var field: String?
    package var message: String

    package init(kind: Kind, field: String? = nil, message: String) {
        self.kind = kind
        self.field = field
        self.message = message
    }

    /// `field: message`, or the message alone.
    package var description: String {
        if let field { return "\(field): \(message)" }
        return message
    }
}

extension BoardAnswerError {
    /// Translates JSONDecoder's error into one naming the field.
    init(_ error: DecodingError) {
        switch error {
        case .keyNotFound(let key, let context):
            self.init(kind: .missingField, field: Self.path(context.codingPath + [key]), message: "missing")
        case .typeMismatch(let type, let context):
            let field = Self.path(context.codingPath)
            if field == nil {
                self.init(kind: .notJSON, message: "expected a JSON object")
            } else {
                self.init(kind: .wrongType, field: field, message: "expected \(Self.name(of: type))")
            }
        case .valueNotFound(let type, let context):
            self.init(
                kind: .wrongType, field: Self.path(context.codingPath),
                message: "expected \(Self.name(of: type)), got null")
        case .dataCorrupted(let context):
            if let field = Self.path(context.codingPath) {
                self.init(kind: .invalidValue, field: field, message: context.debugDescription)
            } else {
                self.init(kind: .notJSON, message: "not valid JSON")
            }
        @unknown default:
            self.init(kind: .notJSON, message: "unreadable answer")
        }
    }

    /// `events[2].id` from a coding path; nil for the top level.
    static func path(_ codingPath: [any CodingKey]) -> String? {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text.isEmpty ? nil : text
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is UInt64.Type, is UInt16.Type, is Int.Type: "an unsigned integer"
        case is Double.Type: "a number"
        case is [Any].Type, is [BoardEvent].Type: "an array"
        default: "an object"
        }
    }
}
