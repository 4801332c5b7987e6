/// A JSON value for output lines: just the kinds `--json` events use. Non-finite numbers encode as
/// `null` so encoding cannot fail.
enum JSONOutput: Encodable, Sendable, Equatable, ExpressibleByStringLiteral {
    case string(String)
    case number(Double)
    case unsigned(UInt64)
    case bool(Bool)

    init(stringLiteral value: String) { self = .string(value) }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value) where value.isFinite: try container.encode(value)
        case .number: try container.encodeNil()
        case .unsigned(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        }
    }
}
