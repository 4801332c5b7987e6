import Glibc
import TestSupport
import Testing

@testable import Platform

/// Crash an atomic write at every step; the file must come back whole: old or new.
@Suite struct AtomicFileCrashTests {
    static let path = "/state/wake.json"
    static let old: [UInt8] = Array(#"{"epoch":4660,"sequence_high_water":1024}"#.utf8)
    static let new: [UInt8] = Array(#"{"epoch":4660,"sequence_high_water":2048}"#.utf8)

    /// How many file-system operations one write takes (found, not assumed).
    static func stepsPerWrite() throws -> Int {
        let fs = InMemoryFileSystem(durableFiles: [path: old])
        try AtomicFile(path: path, fileSystem: fs).write(new)
        return fs.operationCount
    }

    @Test func writesInTheDurableOrder() throws {
        let fs = InMemoryFileSystem(durableFiles: [Self.path: Self.old])
        let file = AtomicFile(path: Self.path, permissions: 0o640, fileSystem: fs)
        try file.write(Self.new)
        #expect(
            fs.operations == [
                .write("/state/wake.json.tmp"),
                .synchronizeFile("/state/wake.json.tmp"),
                .rename("/state/wake.json.tmp", "/state/wake.json"),
                .synchronizeDirectory("/state"),
            ])
        #expect(fs.permissions(at: Self.path) == 0o640)
        fs.crash()
        #expect(try file.read() == Self.new)
    }

    @Test(arguments: [InMemoryFileSystem.UnsyncedData.torn, .lost], [true, false])
    func aCrashAtAnyStepLeavesTheOldOrTheNewContent(unsynced: InMemoryFileSystem.UnsyncedData, hadOld: Bool) throws {
        let steps = try Self.stepsPerWrite()
        #expect(steps == 4)
        var outcomes: Set<[UInt8]?> = []
        for crashAt in 0...steps {
            let fs = InMemoryFileSystem(durableFiles: hadOld ? [Self.path: Self.old] : [:])
            try fs.createDirectory(at: "/state", permissions: 0o700)
            fs.inject(.stop, atOperation: fs.operationCount + crashAt)
            let file = AtomicFile(path: Self.path, fileSystem: fs)
            let completed = (try? file.write(Self.new)) != nil
            #expect(completed == (crashAt == steps), "crash at step \(crashAt)")
            fs.crash(unsyncedData: unsynced)
            let survivor = try file.read()
            let allowed: [[UInt8]?] = completed ? [Self.new] : [hadOld ? Self.old : nil, Self.new]
            let shown = survivor.map { String(decoding: $0, as: UTF8.self) } ?? "nil"
            #expect(allowed.contains(survivor), "crash at step \(crashAt): \(shown)")
            outcomes.insert(survivor)
        }
        #expect(outcomes == [hadOld ? Self.old : nil, Self.new])
    }

    /// A crash in the middle of a write that follows others, for contents of every length
    /// (including empty), shorter and longer than before.
    @Test func aCrashDuringARewriteNeverTearsTheFile() throws {
        let contents: [[UInt8]] = (0..<8).map { [UInt8](repeating: UInt8($0), count: $0 * 3) }
        for (previous, next) in zip(contents, contents.dropFirst().reversed()) {
            for crashAt in 0...4 {
                let fs = InMemoryFileSystem(durableFiles: ["/s/x": [9]])
                let file = AtomicFile(path: "/s/x", fileSystem: fs)
                try file.write(previous)
                fs.inject(.stop, atOperation: fs.operationCount + crashAt)
                _ = try? file.write(next)
                fs.crash()
                let survivor = try file.read()
                #expect(survivor == previous || survivor == next, "crash at \(crashAt), \(previous) -> \(next)")
            }
        }
    }

    /// The model is sharp: writing in place, even with an fsync, is caught tearing the file.
    @Test func writingInPlaceIsCaught() throws {
        let fs = InMemoryFileSystem(durableFiles: [Self.path: Self.old])
        fs.inject(.stop, atOperation: 1)
        try fs.writeFile(at: Self.path, contents: Self.new, permissions: 0o600)
        #expect(throws: FileSystemError.self) { try fs.synchronizeFile(at: Self.path) }
        fs.crash()
        let survivor = try fs.readFile(at: Self.path)
        #expect(survivor != Self.old && survivor != Self.new)
    }

    /// An error (not a crash) before the rename leaves the old file and no temporary behind, and says so.
    @Test func aFailedStepCleansUpTheTemporary() throws {
        for failAt in 0..<3 {
            let fs = InMemoryFileSystem(durableFiles: [Self.path: Self.old])
            fs.inject(.failOnce, atOperation: failAt)
            let file = AtomicFile(path: Self.path, fileSystem: fs)
            #expect {
                try file.write(Self.new)
            } throws: { error in
                (error as? AtomicWriteError)?.replaced == false
            }
            #expect(!fs.fileExists(at: file.temporaryPath), "failure at step \(failAt)")
            #expect(try file.read() == Self.old)
            try file.write(Self.new)
            #expect(try file.read() == Self.new)
        }
    }

    /// A failed directory sync comes after the rename: the new content is in place (not "nothing changed"),
    /// though not known to survive a power loss, and the error says which.
    @Test func aFailedDirectorySyncSaysTheNewContentIsInPlace() throws {
        let fs = InMemoryFileSystem(durableFiles: [Self.path: Self.old])
        fs.inject(.failOnce, atOperation: 3)
        let file = AtomicFile(path: Self.path, fileSystem: fs)
        #expect(throws: AtomicWriteError(FileSystemError(.fsync, path: "/state", code: EIO), replaced: true)) {
            try file.write(Self.new)
        }
        #expect(try file.read() == Self.new, "every reader sees the new content")
        fs.crash()
        #expect(try file.read() == Self.old, "the rename was not durable")
        let error = AtomicWriteError(FileSystemError(.fsync, path: "/state", code: EIO), replaced: true)
        #expect(
            error.description.hasSuffix("after the new content replaced the old: in place, not known to be durable"))
    }

    @Test func readingAMissingFileGivesNil() throws {
        let fs = InMemoryFileSystem()
        #expect(try AtomicFile(path: "/nothing/here", fileSystem: fs).read() == nil)
    }

    @Test func aReadErrorOtherThanMissingIsThrown() {
        let fs = InMemoryFileSystem(durableFiles: [Self.path: Self.old])
        fs.inject(.failOnce, atOperation: 0)
        #expect(throws: FileSystemError(.read, path: Self.path, code: EIO)) {
            try AtomicFile(path: Self.path, fileSystem: fs).read()
        }
    }
}
