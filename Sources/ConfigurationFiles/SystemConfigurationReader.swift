import Configuration
import Platform

/// The configuration's files as the system has them (`Platform.POSIXFileSystem`): the one place reading a
/// configuration touches the file system, so the `Configuration` core stays pure and its tests use strings.
package struct SystemConfigurationReader: ConfigurationReader {
    private let fileSystem = POSIXFileSystem()

    package init() {}

    package func read(_ path: String) throws(ConfigurationError) -> [UInt8] {
        do {
            return try fileSystem.readFile(at: path)
        } catch {
            if error.isNotFound {
                throw ConfigurationError(kind: .fileNotFound, file: path, line: nil, key: nil, message: "no such file")
            }
            let message = error.isPermissionDenied ? "permission denied" : "cannot read the file (\(error.reason))"
            throw ConfigurationError(kind: .unreadable, file: path, line: nil, key: nil, message: message)
        }
    }

    package func names(in path: String) throws(ConfigurationError) -> [String]? {
        do {
            return try fileSystem.contentsOfDirectory(at: path)
        } catch {
            if error.isNotFound || error.isNotADirectory { return nil }
            throw ConfigurationError(
                kind: .unreadable, file: path, line: nil, key: nil,
                message: "cannot list the drop-ins (\(error.reason))")
        }
    }
}

extension BoardConfiguration {
    /// Reads and parses a board file and its drop-ins (`path.d/*.toml`) from the file system.
    package static func load(path: String) throws(ConfigurationError) -> BoardConfiguration {
        try load(path: path, reader: SystemConfigurationReader())
    }

    /// Reads `path` and its drop-ins from the file system: the configuration and where each key came from.
    package static func loadWithSources(
        path: String
    ) throws(ConfigurationError) -> (configuration: BoardConfiguration, sources: [String: String]) {
        try loadWithSources(path: path, reader: SystemConfigurationReader())
    }
}

extension PhoneConfiguration {
    /// Reads and parses a phone file and its drop-ins (`path.d/*.toml`) from the file system.
    package static func load(path: String) throws(ConfigurationError) -> PhoneConfiguration {
        try load(path: path, reader: SystemConfigurationReader())
    }
}
