/// What loading a configuration needs from the file system, and nothing more: a file's bytes and a directory's
/// names. The core decides what to read and what each failure means; the shell (`ConfigurationFiles`) reads, and
/// tests give a tree in memory.
package protocol ConfigurationReader {
    /// The bytes of the file at `path`; `.fileNotFound` when there is none, `.unreadable` when it cannot be read.
    func read(_ path: String) throws(ConfigurationError) -> [UInt8]
    /// The names in the directory `path`; nil when there is no such directory, `.unreadable` when it cannot be
    /// listed.
    func names(in path: String) throws(ConfigurationError) -> [String]?
}

/// A configuration's files: the main one and its drop-ins, as text, in the order they apply.
package enum ConfigurationFile {
    /// The main file `path` and then its drop-ins: every `*.toml` in `path.d/` (`board.toml.d/` beside
    /// `board.toml`), in lexical order by name; names starting with `.` are skipped (editors' backups and the
    /// like), so is any other name. No `path.d/` means no drop-ins. A missing main file is `.fileNotFound`,
    /// whatever drop-ins there are.
    package static func layers(
        path: String, reader: some ConfigurationReader
    ) throws(ConfigurationError) -> [(file: String, text: String)] {
        var layers = [(file: path, text: try text(of: reader.read(path), file: path))]
        guard let names = try reader.names(in: path + ".d") else { return layers }
        for name in dropInNames(names) {
            let file = path + ".d/" + name
            layers.append((file, try text(of: reader.read(file), file: file)))
        }
        return layers
    }

    /// A file's bytes as text: UTF-8 or refused.
    static func text(of bytes: [UInt8], file: String) throws(ConfigurationError) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationError(
                kind: .unreadable, file: file, line: nil, key: nil, message: "the file is not valid UTF-8")
        }
        return text
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
    package static func load(
        path: String, reader: some ConfigurationReader
    ) throws(ConfigurationError)
        -> BoardConfiguration
    {
        try parse(layers: ConfigurationFile.layers(path: path, reader: reader))
    }
}

extension PhoneConfiguration {
    /// Reads and parses a phone file and its drop-ins (`path.d/*.toml`); errors name the file they are in.
    package static func load(
        path: String, reader: some ConfigurationReader
    ) throws(ConfigurationError)
        -> PhoneConfiguration
    {
        try parse(layers: ConfigurationFile.layers(path: path, reader: reader))
    }
}
