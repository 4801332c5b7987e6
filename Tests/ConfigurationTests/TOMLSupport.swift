@testable import Configuration

func parseTOML(_ text: String, file: String = "test.toml") -> Result<TOMLDocument, ConfigurationError> {
    Result { () throws(ConfigurationError) in try TOMLDocument(parsing: text, file: file) }
}

extension Result {
    var failure: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }

    var success: Success? {
        if case let .success(value) = self { return value }
        return nil
    }
}

/// The value of `key` in `[t]` of a one-table document: `t.key = <valueText>`.
func parseValue(_ valueText: String) -> Result<TOMLValue, ConfigurationError> {
    parseTOML("[t]\nkey = \(valueText)\n").map { document in
        document[table: "t"]?["key"]?.value ?? .string("<missing>")
    }
}
