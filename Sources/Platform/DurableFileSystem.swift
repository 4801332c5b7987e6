/// The primitive steps of writing files that survive power loss, as a seam: the board uses
/// `POSIXFileSystem`; tests use `InMemoryFileSystem` (TestSupport), which models what a crash keeps.
///
/// Nothing written is durable until synced: file data needs `synchronizeFile`, a new or
/// renamed directory entry needs `synchronizeDirectory` on the directory holding it.
package protocol DurableFileSystem: Sendable {
    /// Creates or truncates the file and writes all of `contents` (not yet durable).
    func writeFile(at path: String, contents: [UInt8], permissions: UInt16) throws(FileSystemError)
    /// Makes the file's data durable (fsync).
    func synchronizeFile(at path: String) throws(FileSystemError)
    /// Atomically replaces `destination` with `source` (rename(2)); durable after the
    /// directory is synced.
    func rename(from source: String, to destination: String) throws(FileSystemError)
    /// Makes the directory's entries durable (fsync on the directory).
    func synchronizeDirectory(at path: String) throws(FileSystemError)
    /// The whole file; `isNotFound` when it does not exist.
    func readFile(at path: String) throws(FileSystemError) -> [UInt8]
    /// Removes a file (unlink); `isNotFound` when it does not exist.
    func removeFile(at path: String) throws(FileSystemError)
    func fileExists(at path: String) -> Bool
    /// Creates the directory and any missing parents, durably; succeeds if it already exists.
    func createDirectory(at path: String, permissions: UInt16) throws(FileSystemError)
}
