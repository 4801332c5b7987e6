import FoundationEssentials

/// The one place this module touches the file system: reading a configuration file's text.
/// Parsing stays pure (`parse(_:file:)`), so tests use strings.
enum ConfigurationFile {
    /// Reads `path` as UTF-8; a missing file is `.fileNotFound` so callers can fall back to defaults.
    static func read(path: String) throws(ConfigurationError) -> String {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            throw ConfigurationError(kind: .fileNotFound, file: path, line: nil, key: nil, message: "no such file")
        } catch let error as CocoaError where error.code == .fileReadNoPermission {
            throw ConfigurationError(kind: .unreadable, file: path, line: nil, key: nil, message: "permission denied")
        } catch {
            throw ConfigurationError(
                kind: .unreadable, file: path, line: nil, key: nil,
                message: "cannot read the file (\(error))")
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw ConfigurationError(
                kind: .unreadable, file: path, line: nil, key: nil,
                message: "the file is not valid UTF-8")
        }
        return text
    }
}

extension BoardConfiguration {
    /// Reads and parses a board file; errors name it by `path`.
    package static func load(path: String) throws(ConfigurationError) -> BoardConfiguration {
        try parse(ConfigurationFile.read(path: path), file: path)
    }
}

extension PhoneConfiguration {
    /// Reads and parses a phone file; errors name it by `path`.
    package static func load(path: String) throws(ConfigurationError) -> PhoneConfiguration {
        try parse(ConfigurationFile.read(path: path), file: path)
    }
}
