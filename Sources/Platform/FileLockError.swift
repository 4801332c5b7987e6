/// Why a `FileLock` could not be taken.
package enum FileLockError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Another process holds it; its pid, when it could be told.
    case held(path: String, holder: Int32?)
    /// The file could not be opened or locked.
    case failed(FileSystemError)

    package var description: String {
        switch self {
        case let .held(path, holder?): "\(path) is locked by process \(holder)"
        case let .held(path, nil): "\(path) is locked by another process"
        case let .failed(error): "\(error)"
        }
    }
}
