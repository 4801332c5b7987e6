import FoundationEssentials
import Glibc
import Testing

@testable import Platform

/// The real calls, in a fresh directory under /tmp that is removed afterwards.
@Suite struct POSIXFileSystemTests {
    let fs = POSIXFileSystem()

    func withTemporaryDirectory(_ body: (String) throws -> Void) throws {
        var template = Array("/tmp/aiden-platform-test.XXXXXX".utf8CString)
        let created: String? = template.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress, let result = mkdtemp(base) else { return nil }
            return String(cString: result)
        }
        let directory = try #require(created)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory)
    }

    func mode(of path: String) -> UInt32 {
        var info = stat()
        guard stat(path, &info) == 0 else { return 0 }
        return UInt32(info.st_mode) & 0o7777
    }

    @Test func atomicWritesReplaceTheFileAndApplyPermissions() throws {
        try withTemporaryDirectory { directory in
            let file = AtomicFile(path: "\(directory)/wake.json", permissions: 0o640, fileSystem: fs)
            #expect(try file.read() == nil)
            try file.write(Array("first".utf8))
            #expect(try file.read() == Array("first".utf8))
            try file.write(Array("second, longer".utf8))
            #expect(try file.read() == Array("second, longer".utf8))
            try file.write([])
            #expect(try file.read() == [])
            #expect(mode(of: file.path) == 0o640)
            #expect(!fs.fileExists(at: file.temporaryPath))
        }
    }

    /// A temporary left by a crash (with other permissions) is overwritten, not trusted.
    @Test func aLeftoverTemporaryIsOverwritten() throws {
        try withTemporaryDirectory { directory in
            let file = AtomicFile(path: "\(directory)/state.json", fileSystem: fs)
            try fs.writeFile(at: file.temporaryPath, contents: Array("stale and longer".utf8), permissions: 0o666)
            try file.write(Array("fresh".utf8))
            #expect(try file.read() == Array("fresh".utf8))
            #expect(mode(of: file.path) == 0o600)
        }
    }

    @Test func largeContentRoundTrips() throws {
        try withTemporaryDirectory { directory in
            var generator = 0x1234_5678 as UInt32
            let contents = (0..<(1 << 20) + 17).map { _ -> UInt8 in
                generator = generator &* 1_664_525 &+ 1_013_904_223
                return UInt8(truncatingIfNeeded: generator >> 24)
            }
            let file = AtomicFile(path: "\(directory)/big", fileSystem: fs)
            try file.write(contents)
            #expect(try file.read() == contents)
        }
    }

    @Test func primitivesReportErrnoAndPath() throws {
        try withTemporaryDirectory { directory in
            let missing = "\(directory)/missing"
            #expect(throws: FileSystemError(.open, path: missing, code: ENOENT)) { try fs.readFile(at: missing) }
            #expect(throws: FileSystemError(.rename, path: missing, destination: "\(directory)/x", code: ENOENT)) {
                try fs.rename(from: missing, to: "\(directory)/x")
            }
            #expect(throws: FileSystemError(.unlink, path: missing, code: ENOENT)) { try fs.removeFile(at: missing) }
            #expect(throws: FileSystemError(.open, path: "\(missing)/f", code: ENOENT)) {
                try fs.writeFile(at: "\(missing)/f", contents: [1], permissions: 0o600)
            }
            #expect(throws: FileSystemError(.open, path: missing, code: ENOENT)) { try fs.synchronizeFile(at: missing) }
            #expect(throws: FileSystemError.self) { try fs.synchronizeDirectory(at: missing) }
        }
    }

    @Test func primitivesWorkOneByOne() throws {
        try withTemporaryDirectory { directory in
            let path = "\(directory)/a"
            try fs.writeFile(at: path, contents: [1, 2, 3], permissions: 0o600)
            try fs.synchronizeFile(at: path)
            try fs.rename(from: path, to: "\(directory)/b")
            try fs.synchronizeDirectory(at: directory)
            #expect(!fs.fileExists(at: path))
            #expect(try fs.readFile(at: "\(directory)/b") == [1, 2, 3])
            try fs.removeFile(at: "\(directory)/b")
            #expect(!fs.fileExists(at: "\(directory)/b"))
        }
    }

    @Test func createDirectoryMakesParentsIsIdempotentAndRefusesFiles() throws {
        try withTemporaryDirectory { directory in
            let nested = "\(directory)/a/b/c"
            try fs.createDirectory(at: nested, permissions: 0o700)
            try fs.createDirectory(at: nested, permissions: 0o700)
            #expect(fs.fileExists(at: nested))
            #expect(mode(of: nested) == 0o700)
            try fs.writeFile(at: "\(directory)/file", contents: [], permissions: 0o600)
            #expect(throws: FileSystemError(.mkdir, path: "\(directory)/file", code: ENOTDIR)) {
                try fs.createDirectory(at: "\(directory)/file/sub", permissions: 0o700)
            }
        }
    }

    @Test func listsADirectoryAndChecksAccess() throws {
        try withTemporaryDirectory { directory in
            try fs.createDirectory(at: "\(directory)/a/b", permissions: 0o755)
            try fs.writeFile(at: "\(directory)/a/f", contents: [1], permissions: 0o600)
            #expect(Set(try fs.contentsOfDirectory(at: "\(directory)/a")) == ["b", "f"])
            #expect(try fs.contentsOfDirectory(at: "\(directory)/a/b").isEmpty)
            #expect(throws: FileSystemError(.opendir, path: "\(directory)/none", code: ENOENT)) {
                try fs.contentsOfDirectory(at: "\(directory)/none")
            }
            #expect(throws: FileSystemError(.opendir, path: "\(directory)/a/f", code: ENOTDIR)) {
                try fs.contentsOfDirectory(at: "\(directory)/a/f")
            }
            try fs.checkReadableAndWritable(at: "\(directory)/a/f")
            #expect(throws: FileSystemError(.access, path: "\(directory)/a/none", code: ENOENT)) {
                try fs.checkReadableAndWritable(at: "\(directory)/a/none")
            }
            if getuid() != 0 {
                // Root may read and write anything; as anyone else a read-only file is refused.
                try fs.writeFile(at: "\(directory)/a/ro", contents: [1], permissions: 0o400)
                #expect(throws: FileSystemError(.access, path: "\(directory)/a/ro", code: EACCES)) {
                    try fs.checkReadableAndWritable(at: "\(directory)/a/ro")
                }
            }
        }
    }

    @Test func aWritableDirectoryIsOneThisUserMayAddTo() throws {
        try withTemporaryDirectory { directory in
            try fs.checkWritableDirectory(at: directory)
            #expect(throws: FileSystemError(.access, path: "\(directory)/none", code: ENOENT)) {
                try fs.checkWritableDirectory(at: "\(directory)/none")
            }
            if getuid() != 0 {
                // Root may write anywhere; as anyone else a directory without write permission is refused.
                try fs.createDirectory(at: "\(directory)/ro", permissions: 0o500)
                #expect(throws: FileSystemError(.access, path: "\(directory)/ro", code: EACCES)) {
                    try fs.checkWritableDirectory(at: "\(directory)/ro")
                }
            }
        }
    }

    @Test func aPrivateDirectoryIsMadeOnceAndOnlyTrustedWhenItIsThisUsersAlone() throws {
        try withTemporaryDirectory { directory in
            let path = "\(directory)/hooks"
            try fs.makePrivateDirectory(at: path)
            #expect(mode(of: path) == 0o700)
            // There already, as it should be: accepted as it is.
            try fs.makePrivateDirectory(at: path)
            // Open to others: someone could have planted files in it.
            #expect(chmod(path, 0o755) == 0)
            #expect(throws: FileSystemError(.mkdir, path: path, code: EPERM)) { try fs.makePrivateDirectory(at: path) }
            // A file (or a link to a directory) where the directory should be.
            try fs.writeFile(at: "\(directory)/file", contents: [], permissions: 0o600)
            #expect(throws: FileSystemError(.mkdir, path: "\(directory)/file", code: EEXIST)) {
                try fs.makePrivateDirectory(at: "\(directory)/file")
            }
            #expect(throws: FileSystemError(.mkdir, path: "\(directory)/none/hooks", code: ENOENT)) {
                try fs.makePrivateDirectory(at: "\(directory)/none/hooks")
            }
        }
    }
}
