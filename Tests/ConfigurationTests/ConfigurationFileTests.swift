import ConfigurationFiles
import FoundationEssentials
import Testing

@testable import Configuration

/// On the file system: `SystemConfigurationReader` reads (`load(path:)`), the core decides what each byte and each
/// failure means.
@Suite struct ConfigurationFileTests {
    /// Writes `bytes` to a fresh file; the caller removes it with `remove(_:)`.
    private func temporaryFile(_ name: String, bytes: [UInt8]) throws -> String {
        let directory = URL(fileURLWithPath: "/tmp")
            .appendingPathComponent("aiden-config-tests-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    private func remove(_ path: String) {
        try? FileManager.default.removeItem(at: URL(fileURLWithPath: path).deletingLastPathComponent())
    }

    @Test func loadsAndParsesABoardFile() throws {
        let path = try temporaryFile("board.toml", bytes: Array("[wake]\ncoalesce_milliseconds = 100\n".utf8))
        defer { remove(path) }
        #expect(try BoardConfiguration.load(path: path).wake.coalesceMilliseconds == 100)
    }

    @Test func errorsNameTheLoadedPath() throws {
        let path = try temporaryFile("phone.toml", bytes: Array("[phone]\nid = 1\n".utf8))
        defer { remove(path) }
        let result = Result { () throws(ConfigurationError) in try PhoneConfiguration.load(path: path) }
        #expect(result.failure?.description == "\(path):2: phone.id: expected a string, got integer")
    }

    @Test func aMissingFileIsFileNotFound() throws {
        let path = "/nonexistent-aiden-\(UInt64.random(in: 0...UInt64.max))/board.toml"
        let result = Result { () throws(ConfigurationError) in try BoardConfiguration.load(path: path) }
        let error = try #require(result.failure)
        #expect(error.kind == .fileNotFound)
        #expect(error.description == "\(path): no such file")
    }

    @Test func aDirectoryIsUnreadable() throws {
        let result = Result { () throws(ConfigurationError) in try BoardConfiguration.load(path: "/tmp") }
        #expect(result.failure?.kind == .unreadable)
    }

    @Test func invalidUTF8IsRejected() throws {
        let path = try temporaryFile("board.toml", bytes: Array("[log]\nlevel = \"".utf8) + [0xFF, 0x22, 0x0A])
        defer { remove(path) }
        let result = Result { () throws(ConfigurationError) in try BoardConfiguration.load(path: path) }
        #expect(
            result.failure
                == ConfigurationError(
                    kind: .unreadable, file: path, line: nil, key: nil,
                    message: "the file is not valid UTF-8"))
    }

    @Test func aByteOrderMarkFromAnEditorIsAccepted() throws {
        let text = Array("[live_activity]\nenabled = false\n".utf8)
        let path = try temporaryFile("board.toml", bytes: [0xEF, 0xBB, 0xBF] + text)
        defer { remove(path) }
        #expect(try BoardConfiguration.load(path: path).liveActivity.enabled == false)
    }
}
