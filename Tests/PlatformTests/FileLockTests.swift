import FoundationEssentials
import Glibc
import Testing

@testable import Platform

/// flock(2) on a real file under /tmp: one holder at a time, named to whoever is refused.
@Suite struct FileLockTests {
    func withTemporaryDirectory(_ body: (String) throws -> Void) throws {
        var template = Array("/tmp/aiden-lock-test.XXXXXX".utf8CString)
        let created: String? = template.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress, let result = mkdtemp(base) else { return nil }
            return String(cString: result)
        }
        let directory = try #require(created)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory)
    }

    @Test func aSecondHolderIsRefusedAndToldWhoHoldsIt() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/board.lock"
            var first: FileLock? = try FileLock.acquire(path)
            #expect(first != nil)
            #expect(String(decoding: try POSIXFileSystem().readFile(at: path), as: UTF8.self) == "\(getpid())\n")
            #expect(throws: FileLockError.held(path: path, holder: getpid())) { try FileLock.acquire(path) }
            // Released with its holder (as when the process ends): the next one gets it.
            first = nil
            let second = try FileLock.acquire(path)
            #expect(second.path == path)
        }
    }

    /// The pid in the file is only believed while that process lives.
    @Test func aDeadHoldersPidIsNotReported() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/board.lock"
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            #expect(fd >= 0)
            defer { close(fd) }
            #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
            let stale = Array("2147483646\n".utf8)
            #expect(stale.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == stale.count)
            #expect(throws: FileLockError.held(path: path, holder: nil)) { try FileLock.acquire(path) }
        }
    }

    @Test func aLockInAMissingDirectoryIsAnOpenError() {
        let path = "/nonexistent-aiden-dir/board.lock"
        #expect(throws: FileLockError.failed(FileSystemError(.open, path: path, code: ENOENT))) {
            try FileLock.acquire(path)
        }
    }
}
