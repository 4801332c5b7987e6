import Glibc
import Platform
import Synchronization

/// A file system in memory that remembers what is durable, for crash tests of code that
/// writes through `DurableFileSystem`.
///
/// It keeps two views. The volatile view is what a running process sees. The durable view is
/// what survives `crash()`: file data counts once the file was synced, a directory entry (a
/// created, renamed or removed name) once its directory was synced. On a crash, data written
/// but not synced is torn (by default half of it remains), which is how a real disk can leave
/// a file that is neither the old nor the new content. Directories made by `createDirectory`
/// are durable at once, as `POSIXFileSystem` syncs their parents.
///
/// A fault can be set at the Nth operation (counted from 0 over every throwing call):
/// `.stop` makes that call and every later one fail with EIO as if the process died there,
/// until `crash()` restarts the world; `.failOnce` makes just that call fail with EIO.
package final class InMemoryFileSystem: DurableFileSystem {
    /// One primitive call, as recorded in `operations`.
    package enum Operation: Equatable, Sendable {
        case write(String)
        case synchronizeFile(String)
        case rename(String, String)
        case synchronizeDirectory(String)
        case read(String)
        case remove(String)
        case createDirectory(String)
    }

    package enum Fault: Equatable, Sendable {
        case stop
        case failOnce
    }

    /// What a crash leaves of file data that was written but not synced.
    package enum UnsyncedData: Equatable, Sendable {
        /// The first half of the unsynced content remains (a torn write).
        case torn
        /// The last synced content remains (empty if the file was never synced).
        case lost
    }

    private struct Inode {
        var content: [UInt8]
        var durableContent: [UInt8]?
        var permissions: UInt16
    }

    private struct State {
        var inodes: [Int: Inode] = [:]
        var nextInode = 0
        /// Name → inode as the running process sees it.
        var entries: [String: Int] = [:]
        /// Name → inode as a crash would leave it.
        var durableEntries: [String: Int] = [:]
        var directories: Set<String> = ["/", "."]
        var operationCount = 0
        var faults: [Int: Fault] = [:]
        var stopped = false
        var log: [Operation] = []
    }

    private let state = Mutex(State())
    private let synchronizing = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// A file system holding `durableFiles` (and their directories), all synced.
    package init(durableFiles: [String: [UInt8]] = [:]) {
        state.withLock { state in
            for (path, contents) in durableFiles {
                for directory in PathSyntax.directoryPrefixes(of: PathSyntax.parentDirectory(of: path)) {
                    state.directories.insert(directory)
                }
                let inode = state.nextInode
                state.nextInode += 1
                state.inodes[inode] = Inode(content: contents, durableContent: contents, permissions: 0o600)
                state.entries[path] = inode
                state.durableEntries[path] = inode
            }
        }
    }

    // MARK: Fault injection and inspection

    /// Arms a fault at the operation with this index (0 is the next operation ever made).
    package func inject(_ fault: Fault, atOperation index: Int) {
        state.withLock { $0.faults[index] = fault }
    }

    /// How many throwing operations have been made since creation.
    package var operationCount: Int { state.withLock { $0.operationCount } }

    /// Every operation that took effect, in order (failed ones are not listed).
    package var operations: [Operation] { state.withLock { $0.log } }

    /// Whether a `.stop` fault has fired and `crash()` has not been called since.
    package var isStopped: Bool { state.withLock { $0.stopped } }

    /// Runs `hook` with the path after every file sync that took effect, outside the file system's lock: a test
    /// lets time pass there (`ManualRuntime.elapse`), as a slow disk does.
    package func whenSynchronizingFile(_ hook: @escaping @Sendable (String) -> Void) {
        synchronizing.withLock { $0 = hook }
    }

    /// The permissions a file was last written with.
    package func permissions(at path: String) -> UInt16? {
        state.withLock { state in state.entries[path].flatMap { state.inodes[$0]?.permissions } }
    }

    /// Power loss: only what was durable remains; unsynced data is handled as `unsyncedData`
    /// says. Clears a fired `.stop` and any fault not yet reached, so the next operations act
    /// as a restarted process.
    package func crash(unsyncedData: UnsyncedData = .torn) {
        state.withLock { state in
            state.entries = state.durableEntries
            for (number, inode) in state.inodes {
                let durable = inode.durableContent ?? []
                var content = durable
                if inode.content != durable, unsyncedData == .torn {
                    content = Array(inode.content.prefix(inode.content.count / 2))
                }
                state.inodes[number] = Inode(content: content, durableContent: durable, permissions: inode.permissions)
            }
            state.stopped = false
            state.faults = [:]
        }
    }

    // MARK: DurableFileSystem

    package func writeFile(at path: String, contents: [UInt8], permissions: UInt16) throws(FileSystemError) {
        try perform(.write(path), failing: .open, path: path) { (state) throws(FileSystemError) in
            try requireDirectory(PathSyntax.parentDirectory(of: path), in: state, for: .open, path: path)
            guard !state.directories.contains(path) else { throw FileSystemError(.open, path: path, code: EISDIR) }
            if let inode = state.entries[path] {
                state.inodes[inode]?.content = contents
                state.inodes[inode]?.permissions = permissions
            } else {
                let inode = state.nextInode
                state.nextInode += 1
                state.inodes[inode] = Inode(content: contents, durableContent: nil, permissions: permissions)
                state.entries[path] = inode
            }
        }
    }

    package func synchronizeFile(at path: String) throws(FileSystemError) {
        try perform(.synchronizeFile(path), failing: .fsync, path: path) { (state) throws(FileSystemError) in
            let inode = try requireFile(path, in: state, for: .open)
            let content = state.inodes[inode]?.content
            state.inodes[inode]?.durableContent = content
        }
        synchronizing.withLock { $0 }?(path)
    }

    package func rename(from source: String, to destination: String) throws(FileSystemError) {
        try perform(.rename(source, destination), failing: .rename, path: source) { (state) throws(FileSystemError) in
            guard let inode = state.entries[source] else {
                throw FileSystemError(.rename, path: source, destination: destination, code: ENOENT)
            }
            try requireDirectory(PathSyntax.parentDirectory(of: destination), in: state, for: .rename, path: source)
            state.entries[source] = nil
            state.entries[destination] = inode
        }
    }

    package func synchronizeDirectory(at path: String) throws(FileSystemError) {
        try perform(.synchronizeDirectory(path), failing: .fsync, path: path) { (state) throws(FileSystemError) in
            try requireDirectory(path, in: state, for: .open, path: path)
            let inDirectory = { (name: String) in PathSyntax.parentDirectory(of: name) == path }
            state.durableEntries = state.durableEntries.filter { !inDirectory($0.key) }
            for (name, inode) in state.entries where inDirectory(name) {
                state.durableEntries[name] = inode
            }
        }
    }

    package func readFile(at path: String) throws(FileSystemError) -> [UInt8] {
        try perform(.read(path), failing: .read, path: path) { (state) throws(FileSystemError) in
            let inode = try requireFile(path, in: state, for: .open)
            return state.inodes[inode]?.content ?? []
        }
    }

    package func removeFile(at path: String) throws(FileSystemError) {
        try perform(.remove(path), failing: .unlink, path: path) { (state) throws(FileSystemError) in
            _ = try requireFile(path, in: state, for: .unlink)
            state.entries[path] = nil
        }
    }

    package func fileExists(at path: String) -> Bool {
        state.withLock { $0.entries[path] != nil || $0.directories.contains(path) }
    }

    package func createDirectory(at path: String, permissions: UInt16) throws(FileSystemError) {
        try perform(.createDirectory(path), failing: .mkdir, path: path) { (state) throws(FileSystemError) in
            for directory in PathSyntax.directoryPrefixes(of: path) where !state.directories.contains(directory) {
                guard state.entries[directory] == nil else {
                    throw FileSystemError(.mkdir, path: directory, code: ENOTDIR)
                }
                state.directories.insert(directory)
            }
        }
    }

    // MARK: Helpers

    /// Counts the operation, applies an armed fault, runs `body`, and logs it if it succeeded.
    private func perform<Result>(
        _ operation: Operation, failing failure: FileSystemError.Operation, path: String,
        _ body: (inout State) throws(FileSystemError) -> Result
    ) throws(FileSystemError) -> Result {
        try state.withLock { (state) throws(FileSystemError) -> Result in
            let index = state.operationCount
            state.operationCount += 1
            switch state.faults.removeValue(forKey: index) {
            case .stop?: state.stopped = true
            case .failOnce?: throw FileSystemError(failure, path: path, code: EIO)
            case nil: break
            }
            if state.stopped { throw FileSystemError(failure, path: path, code: EIO) }
            let result = try body(&state)
            state.log.append(operation)
            return result
        }
    }

    private func requireFile(
        _ path: String, in state: State, for operation: FileSystemError.Operation
    ) throws(FileSystemError) -> Int {
        guard let inode = state.entries[path] else { throw FileSystemError(operation, path: path, code: ENOENT) }
        return inode
    }

    private func requireDirectory(
        _ directory: String, in state: State, for operation: FileSystemError.Operation, path: String
    ) throws(FileSystemError) {
        guard state.directories.contains(directory) else {
            throw FileSystemError(operation, path: path, code: ENOENT)
        }
    }
}
