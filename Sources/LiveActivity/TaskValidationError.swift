/// Why agent input was refused, naming the JSON key at fault (`nil` for whole-body problems),
/// so the HTTP layer can answer `{"code":"invalid","field":…,"message":…}` and a person can fix it.
package struct TaskValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The JSON key (e.g. `"progress"`), or `nil` when the body as a whole is wrong.
    package var field: String?
    /// What is wrong, without the field name (e.g. `must be a number between 0 and 1, got 1.5`).
    package var message: String

    package init(field: String?, message: String) {
        self.field = field
        self.message = message
    }

    package var description: String {
        guard let field else { return message }
        return "field \"\(field)\": \(message)"
    }
}

extension TaskValidationError {
    /// Maps a `DecodingError` to the JSON key it concerns: the first element of its coding path.
    init(_ error: DecodingError) {
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            self.init(field: nil, message: "body is not valid JSON")
        case .typeMismatch(_, let context) where context.codingPath.isEmpty,
            .valueNotFound(_, let context) where context.codingPath.isEmpty:
            self.init(field: nil, message: "body must be a JSON object")
        case .typeMismatch(_, let context), .dataCorrupted(let context):
            self.init(field: context.codingPath.first?.stringValue, message: context.debugDescription)
        case .valueNotFound(_, let context):
            self.init(field: context.codingPath.first?.stringValue, message: "must not be null")
        case .keyNotFound(let key, let context):
            self.init(field: context.codingPath.first?.stringValue ?? key.stringValue, message: "is required")
        @unknown default:
            self.init(field: nil, message: "body could not be read: \(error)")
        }
    }

    /// A string quoted for an error message: escaped, and cut after 40 characters so one bad value cannot
    /// make the answer large.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for (index, scalar) in text.unicodeScalars.enumerated() {
            if index == 40 {
                result += "…"
                break
            }
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
