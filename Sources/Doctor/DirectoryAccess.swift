import Platform

/// Whether a daemon's state directory can be used by the user running the doctor: seen with access(2)
/// (`POSIXFileSystem.checkWritableDirectory`) by `check`, judged by `finding`.
package enum DirectoryAccess: Sendable, Equatable {
    case writable
    /// Not there yet, but its parent lets this user create it (the daemon does on start).
    case creatable
    /// Neither; the reason in words (strerror).
    case denied(String)

    package static func check(_ path: String) -> DirectoryAccess {
        let fileSystem = POSIXFileSystem()
        do {
            try fileSystem.checkWritableDirectory(at: path)
            return .writable
        } catch  where error.isNotFound {
            // Not there: what counts is whether the parent lets this user make it (and if not, why not).
            let parent = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
            do {
                try fileSystem.checkWritableDirectory(at: parent.isEmpty ? "/" : parent)
                return .creatable
            } catch {
                return .denied(error.reason)
            }
        } catch {
            return .denied(error.reason)
        }
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
