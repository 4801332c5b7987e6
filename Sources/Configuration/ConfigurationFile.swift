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

    /// The main file `path` and then its drop-ins: every `*.toml` in `path.d/` (`board.toml.d/` beside
    /// `board.toml`), in lexical order by name; names starting with `.` are skipped (editors' backups and the
    /// like), so is any other name. No `path.d/` means no drop-ins. A missing main file is `.fileNotFound` as
    /// before, whatever drop-ins there are.
    static func layers(path: String) throws(ConfigurationError) -> [(file: String, text: String)] {
        let main = try read(path: path)
        let directory = path + ".d"
        var isDirectory: Bool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory else {
            return [(path, main)]
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw ConfigurationError(
                kind: .unreadable, file: directory, line: nil, key: nil, message: "cannot list the drop-ins (\(error))")
        }
        var layers = [(file: path, text: main)]
        for name in dropInNames(names) {
            let file = directory + "/" + name
            layers.append((file, try read(path: file)))
        }
        return layers
    }

    /// The drop-ins among a directory's `names`, in the order they apply: `*.toml`, not hidden, sorted by their
    /// bytes (so `10-a.toml` before `9-b.toml`, as systemd orders drop-ins).
    static func dropInNames(_ names: [String]) -> [String] {
        names.filter { $0.hasSuffix(".toml") && !$0.hasPrefix(".") && $0 != ".toml" }
            .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }
}

extension BoardConfiguration {
    /// Reads and parses a board file and its drop-ins (`path.d/*.toml`); errors name the file they are in.
    package static func load(path: String) throws(ConfigurationError) -> BoardConfiguration {
        try parse(layers: ConfigurationFile.layers(path: path))
    }
}

extension PhoneConfiguration {
    /// Reads and parses a phone file and its drop-ins (`path.d/*.toml`); errors name the file they are in.
    package static func load(path: String) throws(ConfigurationError) -> PhoneConfiguration {
        try parse(layers: ConfigurationFile.layers(path: path))
    }
}
