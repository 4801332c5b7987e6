import ConfigurationFiles
import FoundationEssentials
import Testing

@testable import Configuration

/// Drop-ins (`board.toml.d/*.toml`, `phone.toml.d/*.toml`): read after the main file in lexical order, each key a
/// later file writes replacing the one before, tables merging key by key; a bad drop-in is named with its key.
@Suite struct DropInTests {
    typealias Layers = [(file: String, text: String)]

    @Test(
        arguments: [
            // A later file's key wins; the keys it does not write stay.
            (
                [
                    ("board.toml", "[wake]\ncoalesce_milliseconds = 100\nadapter = \"hci1\"\n"),
                    ("board.toml.d/10-fast.toml", "[wake]\ncoalesce_milliseconds = 50\n"),
                ],
                50, "hci1", "debug-not-set"
            ),
            // Tables merge: each file writes its own keys of [wake] and [log].
            (
                [
                    ("board.toml", "[wake]\nadapter = \"hci1\"\n"),
                    ("board.toml.d/10-log.toml", "[log]\nlevel = \"debug\"\n"),
                    ("board.toml.d/20-wake.toml", "[wake]\ncoalesce_milliseconds = 200\n"),
                ],
                200, "hci1", "debug"
            ),
            // The last of several drop-ins wins.
            (
                [
                    ("board.toml", ""), ("board.toml.d/10-a.toml", "[wake]\ncoalesce_milliseconds = 300\n"),
                    ("board.toml.d/90-z.toml", "[wake]\ncoalesce_milliseconds = 400\n"),
                ],
                400, "hci0", "debug-not-set"
            ),
        ] as [(Layers, Int, String, String)])
    func laterKeysOverrideAndTablesMerge(layers: Layers, coalesce: Int, adapter: String, level: String) throws {
        let configuration = try BoardConfiguration.parse(layers: layers)
        #expect(configuration.wake.coalesceMilliseconds == coalesce)
        #expect(configuration.wake.adapter == adapter)
        #expect((configuration.log.level.rawValue == "debug" ? "debug" : "debug-not-set") == level)
        #expect(configuration.http == BoardConfiguration.defaults.http, "a table nobody writes keeps its defaults")
    }

    @Test(arguments: [
        (
            "board.toml.d/20-bad.toml", "[wake]\ncoalesce_milliseconds = \"fast\"\n",
            "board.toml.d/20-bad.toml:2: wake.coalesce_milliseconds: expected an integer, got string"
        ),
        ("board.toml.d/30-typo.toml", "[wake]\nadaptor = \"hci1\"\n", "board.toml.d/30-typo.toml:2: wake.adaptor: "),
        ("board.toml.d/40-table.toml", "[wakes]\n", "board.toml.d/40-table.toml:1: "),
    ])
    func aBadDropInIsNamedWithItsKey(file: String, text: String, expected: String) throws {
        let layers: Layers = [("board.toml", "[wake]\nadapter = \"hci1\"\n"), (file, text)]
        let result = Result { () throws(ConfigurationError) in try BoardConfiguration.parse(layers: layers) }
        let error = try #require(result.failure)
        #expect(error.file == file)
        #expect(error.description.hasPrefix(expected), "\(error)")
    }

    @Test func thePhoneReadsItsDropInsTheSameWay() throws {
        let configuration = try PhoneConfiguration.parse(layers: [
            ("phone.toml", "[wake]\nadapter = \"hci1\"\n"), ("phone.toml.d/10.toml", "[log]\nlevel = \"debug\"\n"),
        ])
        #expect(configuration.wake.adapter == "hci1")
        #expect(configuration.log.level.rawValue == "debug")
    }

    @Test func onlyVisibleTomlFilesApplyInByteOrder() {
        #expect(
            ConfigurationFile.dropInNames([
                "b.toml", "10-a.toml", "9-b.toml", ".hidden.toml", "notes.txt", "c.toml~", "A.toml",
            ])
                == ["10-a.toml", "9-b.toml", "A.toml", "b.toml"])
    }

    /// A tree in memory (`ConfigurationReader`): what the core reads, in which order, and what a failure to list
    /// the drop-ins means, without a file system.
    @Test func theCoreReadsTheMainFileThenItsDropInsThroughTheReader() throws {
        struct Tree: ConfigurationReader {
            var files: [String: String]
            var directories: [String: [String]]
            var unlistable: Set<String> = []
            func read(_ path: String) throws(ConfigurationError) -> [UInt8] {
                guard let text = files[path] else {
                    throw ConfigurationError(
                        kind: .fileNotFound, file: path, line: nil, key: nil, message: "no such file")
                }
                return Array(text.utf8)
            }
            func names(in path: String) throws(ConfigurationError) -> [String]? {
                if unlistable.contains(path) {
                    throw ConfigurationError(kind: .unreadable, file: path, line: nil, key: nil, message: "denied")
                }
                return directories[path]
            }
        }
        var tree = Tree(
            files: [
                "/etc/b.toml": "[wake]\ncoalesce_milliseconds = 100\n",
                "/etc/b.toml.d/2.toml": "[wake]\ncoalesce_milliseconds = 300\n",
                "/etc/b.toml.d/10.toml": "[wake]\ncoalesce_milliseconds = 200\n",
            ],
            directories: ["/etc/b.toml.d": ["2.toml", "10.toml", "notes.txt"]])
        let layers = try ConfigurationFile.layers(path: "/etc/b.toml", reader: tree)
        #expect(layers.map(\.file) == ["/etc/b.toml", "/etc/b.toml.d/10.toml", "/etc/b.toml.d/2.toml"])
        #expect(try BoardConfiguration.load(path: "/etc/b.toml", reader: tree).wake.coalesceMilliseconds == 300)
        tree.directories = [:]
        #expect(try BoardConfiguration.load(path: "/etc/b.toml", reader: tree).wake.coalesceMilliseconds == 100)
        tree.unlistable = ["/etc/b.toml.d"]
        let unlisted = Result { () throws(ConfigurationError) in
            try BoardConfiguration.load(path: "/etc/b.toml", reader: tree)
        }
        #expect(unlisted.failure?.file == "/etc/b.toml.d")
        tree.files["/etc/b.toml"] = nil
        let missing = Result { () throws(ConfigurationError) in
            try BoardConfiguration.load(path: "/etc/b.toml", reader: tree)
        }
        #expect(missing.failure?.kind == .fileNotFound, "a missing main file, whatever drop-ins there are")
    }

    /// On disk: `board.toml.d/` beside the file `load` reads, in lexical order, a bad one named by its path.
    @Test func loadReadsTheDirectoryBesideTheFile() throws {
        let root = "/tmp/aiden-dropins-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: root + "/board.toml.d", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        func write(_ path: String, _ text: String) throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: root + path))
        }
        try write("/board.toml", "[wake]\ncoalesce_milliseconds = 100\n")
        try write("/board.toml.d/20-b.toml", "[wake]\ncoalesce_milliseconds = 300\n")
        try write("/board.toml.d/10-a.toml", "[wake]\ncoalesce_milliseconds = 200\nadapter = \"hci2\"\n")
        try write("/board.toml.d/README", "not TOML at all")
        let configuration = try BoardConfiguration.load(path: root + "/board.toml")
        #expect(configuration.wake.coalesceMilliseconds == 300)
        #expect(configuration.wake.adapter == "hci2")

        try write("/board.toml.d/30-bad.toml", "[wake]\ncoalesce_milliseconds = 1\n")
        let result = Result { () throws(ConfigurationError) in try BoardConfiguration.load(path: root + "/board.toml") }
        let error = try #require(result.failure)
        #expect(error.file == root + "/board.toml.d/30-bad.toml")
        #expect(error.key == "wake.coalesce_milliseconds")
    }
}
