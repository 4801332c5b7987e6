/// One top-level value of an agent's request body, read only as far as validation needs: scalars
/// exactly, arrays and objects by kind (their contents are never decoded, since no known field holds one).
enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case unsigned(UInt64)
    case signed(Int64)
    case number(Double)
    case string(String)
    case array
    case object
    /// A number out of Double's range or a string with a lone surrogate escape.
    case unreadable

    /// The value as an error message shows it after "got".
    var summary: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .unsigned(let value): String(value)
        case .signed(let value): String(value)
        case .number(let value): String(value)
        case .string(let value): TaskValidationError.quoted(value)
        case .array: "an array"
        case .object: "an object"
        case .unreadable: "an unreadable value"
        }
    }
}

extension JSONValue: Decodable {
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(UInt64.self) {
            self = .unsigned(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .signed(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if (try? decoder.unkeyedContainer()) != nil {
            self = .array
        } else if (try? decoder.container(keyedBy: JSONKey.self)) != nil {
            self = .object
        } else {
            self = .unreadable
        }
    }
}

/// Any object key.
struct JSONKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        nil
    }
}
