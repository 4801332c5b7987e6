import Glibc

/// A failed file-system call: which call, on which path, and the errno it returned.
package struct FileSystemError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The system call (or step) that failed.
    package enum Operation: String, Sendable {
        case open, read, write, fsync, close, fchmod, rename, unlink, mkdir, stat, opendir, access, flock
    }

    package var operation: Operation
    package var path: String
    /// The second path of a rename.
    package var destination: String?
    /// The errno value.
    package var code: Int32

    package init(_ operation: Operation, path: String, destination: String? = nil, code: Int32) {
        self.operation = operation
        self.path = path
        self.destination = destination
        self.code = code
    }

    /// Whether the path (or a directory on it) does not exist.
    package var isNotFound: Bool { code == ENOENT }

    /// Whether this process may not open or list the path.
    package var isPermissionDenied: Bool { code == EACCES }

    /// Whether the path (or one on it) is not a directory where one was needed.
    package var isNotADirectory: Bool { code == ENOTDIR }

    /// The system's words for `code` ("Permission denied"), for messages that name the path themselves.
    package var reason: String { String(cString: strerror(code)) }

    package var description: String {
        let target = destination.map { "\(path) -> \($0)" } ?? path
        return "\(operation.rawValue) \(target): \(reason) (errno \(code))"
    }
}
