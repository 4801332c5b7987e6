import Glibc
import TestSupport
import Testing

@testable import Platform

/// The durability model itself: what survives `crash()`, and the fault switches.
@Suite struct InMemoryFileSystemTests {
    let new: [UInt8] = Array("new content".utf8)
    let old: [UInt8] = Array("old content!".utf8)

    @Test func unsyncedDataIsTornOrLostByACrash() throws {
        for mode in [InMemoryFileSystem.UnsyncedData.torn, .lost] {
            let fs = InMemoryFileSystem(durableFiles: ["/s/f": old])
            try fs.writeFile(at: "/s/f", contents: new, permissions: 0o600)
            #expect(try fs.readFile(at: "/s/f") == new)
            fs.crash(unsyncedData: mode)
            let expected = mode == .torn ? Array(new.prefix(new.count / 2)) : old
            #expect(try fs.readFile(at: "/s/f") == expected)
        }
    }

    @Test func syncedDataSurvives() throws {
        let fs = InMemoryFileSystem(durableFiles: ["/s/f": old])
        try fs.writeFile(at: "/s/f", contents: new, permissions: 0o600)
        try fs.synchronizeFile(at: "/s/f")
        fs.crash()
        #expect(try fs.readFile(at: "/s/f") == new)
    }

    /// A new file's name is only durable once its directory is synced, even if its data is.
    @Test func aNewNameNeedsTheDirectorySynced() throws {
        let fs = InMemoryFileSystem()
        try fs.createDirectory(at: "/s", permissions: 0o700)
        try fs.writeFile(at: "/s/f", contents: new, permissions: 0o600)
        try fs.synchronizeFile(at: "/s/f")
        fs.crash()
        #expect(!fs.fileExists(at: "/s/f"))
        #expect(fs.fileExists(at: "/s"))

        try fs.writeFile(at: "/s/f", contents: new, permissions: 0o600)
        try fs.synchronizeFile(at: "/s/f")
        try fs.synchronizeDirectory(at: "/s")
        fs.crash()
        #expect(try fs.readFile(at: "/s/f") == new)
    }

    @Test func aRenameIsUndoneByACrashUntilTheDirectoryIsSynced() throws {
        let fs = InMemoryFileSystem(durableFiles: ["/s/f": old])
        try fs.writeFile(at: "/s/f.tmp", contents: new, permissions: 0o600)
        try fs.synchronizeFile(at: "/s/f.tmp")
        try fs.rename(from: "/s/f.tmp", to: "/s/f")
        #expect(try fs.readFile(at: "/s/f") == new)
        #expect(!fs.fileExists(at: "/s/f.tmp"))
        fs.crash()
        #expect(try fs.readFile(at: "/s/f") == old)
    }

    @Test func aRemovalIsUndoneByACrashUntilTheDirectoryIsSynced() throws {
        let fs = InMemoryFileSystem(durableFiles: ["/s/f": old])
        try fs.removeFile(at: "/s/f")
        #expect(!fs.fileExists(at: "/s/f"))
        fs.crash()
        #expect(fs.fileExists(at: "/s/f"))
        try fs.removeFile(at: "/s/f")
        try fs.synchronizeDirectory(at: "/s")
        fs.crash()
        #expect(!fs.fileExists(at: "/s/f"))
    }

    @Test func missingPathsFailLikePOSIX() {
        let fs = InMemoryFileSystem()
        #expect(throws: FileSystemError(.open, path: "/s/f", code: ENOENT)) { try fs.readFile(at: "/s/f") }
        #expect(throws: FileSystemError(.open, path: "/nodir/f", code: ENOENT)) {
            try fs.writeFile(at: "/nodir/f", contents: [], permissions: 0o600)
        }
        #expect(throws: FileSystemError(.rename, path: "/a", destination: "/b", code: ENOENT)) {
            try fs.rename(from: "/a", to: "/b")
        }
        #expect(throws: FileSystemError(.unlink, path: "/a", code: ENOENT)) { try fs.removeFile(at: "/a") }
    }

    @Test func aStopFailsThatAndEveryLaterOperationUntilACrash() throws {
        let fs = InMemoryFileSystem(durableFiles: ["/s/f": old])
        fs.inject(.stop, atOperation: 1)
        try fs.writeFile(at: "/s/g", contents: new, permissions: 0o600)
        #expect(throws: FileSystemError(.fsync, path: "/s/g", code: EIO)) { try fs.synchronizeFile(at: "/s/g") }
        #expect(fs.isStopped)
        #expect(throws: FileSystemError(.read, path: "/s/f", code: EIO)) { try fs.readFile(at: "/s/f") }
        fs.crash()
        #expect(!fs.isStopped)
        #expect(try fs.readFile(at: "/s/f") == old)
        #expect(fs.operations == [.write("/s/g"), .read("/s/f")])
        #expect(fs.operationCount == 4)
    }

    @Test func aCrashDisarmsFaultsNotYetReached() throws {
        let fs = InMemoryFileSystem(durableFiles: ["/s/f": old])
        fs.inject(.stop, atOperation: 5)
        fs.crash()
        for _ in 0..<10 { #expect(try fs.readFile(at: "/s/f") == old) }
    }

    @Test func aFailOnceFaultFailsOnlyThatOperation() throws {
        let fs = InMemoryFileSystem(durableFiles: ["/s/f": old])
        fs.inject(.failOnce, atOperation: 0)
        #expect(throws: FileSystemError(.open, path: "/s/f", code: EIO)) {
            try fs.writeFile(at: "/s/f", contents: new, permissions: 0o600)
        }
        #expect(try fs.readFile(at: "/s/f") == old)
        #expect(!fs.isStopped)
    }

    @Test func createDirectoryMakesParentsAndRefusesFiles() throws {
        let fs = InMemoryFileSystem(durableFiles: ["/s/f": old])
        try fs.createDirectory(at: "/a/b/c", permissions: 0o700)
        try fs.createDirectory(at: "/a/b/c", permissions: 0o700)
        #expect(fs.fileExists(at: "/a/b"))
        fs.crash()
        #expect(fs.fileExists(at: "/a/b/c"))
        #expect(throws: FileSystemError(.mkdir, path: "/s/f", code: ENOTDIR)) {
            try fs.createDirectory(at: "/s/f/g", permissions: 0o700)
        }
    }
}
