#if canImport(Glibc)
import Glibc
#endif

/// The process environment as a dictionary, read from `environ` (FoundationEssentials' ProcessInfo
/// would do too; this keeps the executable's imports small).
package enum ProcessEnvironment {
    package static func current() -> [String: String] {
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

    /// The name of the user this process runs as (its real uid), or `uid N` when the user database has none.
    package static func userName() -> String {
        let uid = getuid()
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
        return String(cString: name)
    }
}
