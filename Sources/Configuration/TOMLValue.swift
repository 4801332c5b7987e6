/// A value from the supported TOML subset: strings, integers, booleans and flat arrays.
///
/// Floats, dates, inline tables and nested arrays are rejected by the parser; the
/// configurations never need them, and a smaller language has fewer surprises.
package enum TOMLValue: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    case boolean(Bool)
    /// Elements keep their own line numbers because arrays may span lines.
    case array([TOMLItem])

    /// The type name used in error messages: `string`, `integer`, `array of strings`, …
    package var typeName: String {
        switch self {
        case .string: return "string"
        case .integer: return "integer"
        case .boolean: return "boolean"
        case let .array(items):
            guard let first = items.first else { return "empty array" }
            guard items.allSatisfy({ $0.value.scalarTypeName == first.value.scalarTypeName }) else {
                return "mixed array"
            }
            return "array of \(first.value.scalarTypeName)s"
        }
    }

    private var scalarTypeName: String {
        switch self {
        case .string: return "string"
        case .integer: return "integer"
        case .boolean: return "boolean"
        case .array: return "array"
        }
    }
}

/// A value and the 1-based line it starts on.
package struct TOMLItem: Equatable, Sendable {
    package let value: TOMLValue
    package let line: Int

    package init(value: TOMLValue, line: Int) {
        self.value = value
        self.line = line
    }
}

/// One `key = value` pair; `line` is where the key is written.
package struct TOMLEntry: Equatable, Sendable {
    package let key: String
    package let value: TOMLValue
    package let line: Int

    package init(key: String, value: TOMLValue, line: Int) {
        self.key = key
        self.value = value
        self.line = line
    }
}
