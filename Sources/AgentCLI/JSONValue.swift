/// Any JSON value, for answers whose keys aidenctl does not know in advance (`status`). Object keys come
/// back sorted, so output is stable whatever order the daemon used.
package indirect enum JSONValue: Decodable, Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number as text: integers exactly (also beyond Int64, as UInt64), others as Swift prints a Double.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .number(String(value))
        } else if let value = try? container.decode(UInt64.self) {
            self = .number(String(value))
        } else if let value = try? container.decode(Double.self) {
            self = .number(value.description)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}
