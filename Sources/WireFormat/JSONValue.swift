/// Any JSON value: request bodies the board reads member by member, answers aidenctl prints
/// without knowing their keys (`status`), and the phone's `--json` lines. Numbers are kept as
/// text (integers exactly, also beyond Int64 as UInt64; others as Swift prints a Double), so a
/// value prints as it was sent and an integer is never rounded through Double.
package indirect enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
    /// Something JSONDecoder could not read as any of the above (a number beyond Double's range).
    /// Kept rather than thrown so a validator can name the member it was found in.
    case unreadable

    /// A finite number; `null` otherwise (JSON has no NaN or infinity), so encoding cannot fail.
    package init(_ value: Double) {
        self = value.isFinite ? .number(value.description) : .null
    }

    package init(_ value: UInt64) {
        self = .number(String(value))
    }

    /// The number as a non-negative integer, if it is one.
    package var unsignedInteger: UInt64? {
        if case let .number(text) = self { UInt64(text) } else { nil }
    }

    /// The number as a Double (large integers rounded), if it is a number.
    package var double: Double? {
        if case let .number(text) = self { Double(text) } else { nil }
    }

    /// False when the value or anything inside it is `unreadable`: readers that take a body as a
    /// whole refuse it as not JSON.
    package var isReadable: Bool {
        switch self {
        case .unreadable: false
        case let .array(items): items.allSatisfy(\.isReadable)
        case let .object(members): members.values.allSatisfy(\.isReadable)
        default: true
        }
    }
}

extension JSONValue: Codable {
    /// Every attempt that does not match throws (an error with its context: most of the cost of reading a
    /// body), so the common kinds come first: strings, then integers, then objects. Only the numbers' order
    /// matters for the result (an integer is read as Int64, then UInt64, before Double); JSONDecoder never
    /// reads one kind as another.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .number(String(value))
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(UInt64.self) {
            self = .number(String(value))
        } else if let value = try? container.decode(Double.self) {
            self = .number(value.description)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .unreadable
        }
    }

    /// Numbers are written as the integer or Double they spell; `unreadable` as `null`.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null, .unreadable: try container.encodeNil()
        case let .bool(value): try container.encode(value)
        case let .number(text):
            if let value = UInt64(text) {
                try container.encode(value)
            } else if let value = Int64(text) {
                try container.encode(value)
            } else if let value = Double(text), value.isFinite {
                try container.encode(value)
            } else {
                try container.encodeNil()
            }
        case let .string(value): try container.encode(value)
        case let .array(items): try container.encode(items)
        case let .object(members): try container.encode(members)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    package init(stringLiteral value: String) { self = .string(value) }
}
