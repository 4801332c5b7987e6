/// Why a configuration file (or environment override) was rejected.
///
/// Operators fix configuration by hand, so every error points at the place to edit:
/// `board.toml:12: http.listen: expected an array of strings, got integer`.
package struct ConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong, coarsely; lets callers (and tests) tell a typo from a missing file.
    package enum Kind: Equatable, Sendable {
        /// The text is not valid TOML (or uses TOML this parser does not support).
        case syntax
        /// A key or table the configuration does not know.
        case unknownKey
        /// A value of the wrong TOML type (string where an integer belongs, …).
        case wrongType
        /// A value of the right type that fails validation (out of range, bad address, …).
        case invalidValue
        /// The file does not exist (callers may fall back to the defaults).
        case fileNotFound
        /// The file exists but could not be read or is not UTF-8.
        case unreadable
    }

    package let kind: Kind
    /// The file name as the caller gave it, or `environment` for environment overrides.
    package let file: String
    /// 1-based line number, when the problem has a place in the file.
    package let line: Int?
    /// Dotted key (`http.listen`), table name, or environment variable, when known.
    package let key: String?
    package let message: String

    package init(kind: Kind, file: String, line: Int?, key: String?, message: String) {
        self.kind = kind
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    /// `file:line: key: message`, leaving out the parts that are unknown.
    package var description: String {
        var text = file
        if let line { text += ":\(line)" }
        if let key { text += ": \(key)" }
        return text + ": " + message
    }
}
