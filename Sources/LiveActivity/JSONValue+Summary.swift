import WireFormat

/// How a validation message shows the value it refused, after "got".
extension JSONValue {
    var summary: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .number(let text): text
        case .string(let value): TaskValidationError.quoted(value)
        case .array: "an array"
        case .object: "an object"
        case .unreadable: "an unreadable value"
        }
    }
}
