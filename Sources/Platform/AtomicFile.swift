/// A file replaced whole or not at all, even across power loss: the state directory's
/// records (tasks, transition ring, epoch and wake high-water mark) are written this way.
///
/// A write goes to `<name>.tmp`, syncs it, renames it over the target and syncs the
/// directory. A crash at any point leaves either the complete old content or the complete new
/// content; once `write` returns, the new content is durable. One writer per file: callers
/// serialize writes to the same path (the temporary name is fixed).
package struct AtomicFile: Sendable {
    package let path: String
    package let permissions: UInt16
    private let fileSystem: any DurableFileSystem

    package init(path: String, permissions: UInt16 = 0o600, fileSystem: any DurableFileSystem = POSIXFileSystem()) {
        self.path = path
        self.permissions = permissions
        self.fileSystem = fileSystem
    }

    /// Where the new content is staged; a leftover from a crash is simply overwritten.
    package var temporaryPath: String { path + ".tmp" }

    /// The directory whose entry the rename changes.
    package var directory: String { PathSyntax.parentDirectory(of: path) }

    /// Replaces the content durably. The error says which side of the rename it came from: before it,
    /// the old content is untouched; after it (the directory sync failed), the new content is what every
    /// reader sees, but a power loss may still bring the old one back. Either way, writing again settles it.
    package func write(_ contents: [UInt8]) throws(AtomicWriteError) {
        do {
            try fileSystem.writeFile(at: temporaryPath, contents: contents, permissions: permissions)
            try fileSystem.synchronizeFile(at: temporaryPath)
            try fileSystem.rename(from: temporaryPath, to: path)
        } catch {
            try? fileSystem.removeFile(at: temporaryPath)
            throw AtomicWriteError(error, replaced: false)
        }
        do {
            try fileSystem.synchronizeDirectory(at: directory)
        } catch {
            throw AtomicWriteError(error, replaced: true)
        }
    }

    /// The content, or nil when the file does not exist (never written, or a first write
    /// that did not complete).
    package func read() throws(FileSystemError) -> [UInt8]? {
        do {
            return try fileSystem.readFile(at: path)
        } catch  where error.isNotFound {
            return nil
        }
    }
}
