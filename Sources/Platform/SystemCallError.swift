#if canImport(Glibc)
import Glibc
#endif

/// A failed system call that is neither a file's nor a socket's (a pipe, a thread, a spawn): which call, and
/// the errno it gave, so a message says what could not be set up and the system's reason.
package struct SystemCallError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call, e.g. `pipe`, `pthread_create`, `posix_spawnp`.
    package let operation: String
    /// The errno value (or the error number the call returned).
    package let code: Int32

    package init(operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    /// The system's words for `code` ("Too many open files").
    package var reason: String { String(cString: strerror(code)) }

    /// Whether the program or a directory on its path does not exist (ENOENT, ENOTDIR): a shell's 127.
    package var isNotFound: Bool { code == ENOENT || code == ENOTDIR }

    package var description: String { "\(operation): \(reason)" }
}
