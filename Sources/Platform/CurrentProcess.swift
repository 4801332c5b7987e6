#if canImport(Glibc)
import Glibc
#endif

/// This process: its environment, the user it runs as, and its end. The executables and services ask here
/// rather than calling libc, so only Platform speaks to the C world (FoundationEssentials' ProcessInfo would
/// give the environment too; this keeps the executables' imports small).
package enum CurrentProcess {
    /// The environment as a dictionary, read from `environ`.
    package static func environment() -> [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }

    /// Whether this process runs as root (its effective uid is 0).
    package static func isRoot() -> Bool { geteuid() == 0 }

    /// The real uid: whose per-user files (aidenctl's hook state) these are.
    package static func userID() -> UInt32 { getuid() }

    /// The name of the user this process runs as (its real uid), or `uid N` when the user database has none.
    package static func userName() -> String {
        let uid = getuid()
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
        return String(cString: name)
    }

    /// The id of the group `name` in the group database, nil when there is none (the board's `aiden` group).
    package static func groupID(named name: String) -> UInt32? {
        getgrnam(name).map { $0.pointee.gr_gid }
    }

    /// Makes a write to a pipe or socket whose reader went away fail with EPIPE instead of killing the process
    /// (SIGPIPE ignored): a daemon or a command must get to flush, answer or end its task first.
    package static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Ends the process with `status`, after the C library flushes its streams (`exit(3)`).
    package static func exit(_ status: Int32) -> Never {
        Glibc.exit(status)
    }
}
