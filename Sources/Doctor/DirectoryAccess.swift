#if canImport(Glibc)
import Glibc
#endif

/// Whether a daemon's state directory can be used by the user running the doctor: seen with access(2)
/// by `check`, judged by `finding`.
package enum DirectoryAccess: Sendable, Equatable {
    case writable
    /// Not there yet, but its parent lets this user create it (the daemon does on start).
    case creatable
    /// Neither; the reason in words (strerror).
    case denied(String)

    package static func check(_ path: String) -> DirectoryAccess {
        if access(path, W_OK | X_OK) == 0 { return .writable }
        if errno == ENOENT {
            let parent = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
            if access(parent.isEmpty ? "/" : parent, W_OK | X_OK) == 0 { return .creatable }
        }
        return .denied(String(cString: strerror(errno)))
    }

    /// The state directory's finding; `fix` says how this daemon's directory is made.
    package func finding(stateDirectory path: String, fix: String) -> DoctorFinding {
        switch self {
        case .writable:
            .ok("state directory \(path) is writable")
        case .creatable:
            .info("state directory \(path) does not exist yet; it is made on start")
        case let .denied(reason):
            .problem("state directory \(path) is not writable: \(reason)", fix: fix)
        }
    }
}
