/// One `key = value` entry seen by the typed configuration layer, with everything an error
/// message needs (file, line, dotted key). Each accessor checks the TOML type first, so a wrong
/// type reads `expected an integer, got string` and names the place.
struct ConfigurationField {
    let file: String
    let table: String
    let entry: TOMLEntry

    var name: String { entry.key }
    /// `table.key`, as written in messages.
    var path: String { table.isEmpty ? entry.key : "\(table).\(entry.key)" }

    func error(_ kind: ConfigurationError.Kind, _ message: String, line: Int? = nil) -> ConfigurationError {
        ConfigurationError(kind: kind, file: file, line: line ?? entry.line, key: path, message: message)
    }

    func invalid(_ message: String, line: Int? = nil) -> ConfigurationError {
        error(.invalidValue, message, line: line)
    }

    func wrongType(expected: String) -> ConfigurationError {
        error(.wrongType, "expected \(expected), got \(entry.value.typeName)")
    }

    func unknownKey(known: [String]) -> ConfigurationError {
        let where_ = table.isEmpty ? "at the top level" : "in [\(table)]"
        return error(.unknownKey, "unknown key \(where_) (known: \(known.joined(separator: ", ")))")
    }

    // MARK: Typed access

    /// `example` completes the type error: `expected a string like "0x1d6b", got integer`.
    func string(example: String? = nil) throws(ConfigurationError) -> String {
        guard case let .string(text) = entry.value else {
            throw wrongType(expected: "a string" + (example.map { " like \"\($0)\"" } ?? ""))
        }
        return text
    }

    func boolean() throws(ConfigurationError) -> Bool {
        guard case let .boolean(flag) = entry.value else { throw wrongType(expected: "a boolean (true or false)") }
        return flag
    }

    /// An integer inside `range`; `unit` completes the range message ("50...60000 milliseconds").
    func integer(in range: ClosedRange<Int64>, unit: String) throws(ConfigurationError) -> Int {
        guard case let .integer(number) = entry.value else { throw wrongType(expected: "an integer") }
        guard range.contains(number) else {
            throw invalid("\(number) is out of range; expected \(range.lowerBound)...\(range.upperBound) \(unit)")
        }
        return Int(number)
    }

    /// Each element's text and line (arrays may span lines, so errors point at the element).
    func strings() throws(ConfigurationError) -> [(text: String, line: Int)] {
        guard case let .array(items) = entry.value else { throw wrongType(expected: "an array of strings") }
        var result: [(text: String, line: Int)] = []
        for item in items {
            guard case let .string(text) = item.value else { throw wrongType(expected: "an array of strings") }
            result.append((text, item.line))
        }
        return result
    }
}
