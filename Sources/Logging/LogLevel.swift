/// Severity of a log line; the raw value is the syslog/journald priority, written as the
/// `<N>` prefix that journald reads from a service's stderr.
///
/// Its own pure target so that cores can return "log this" effects (`PhoneSession.Effect.log`)
/// without importing `Platform`, whose `Logger` writes them.
package enum LogLevel: Int, Comparable, Sendable, CaseIterable {
    case error = 3
    case warning = 4
    case notice = 5
    case info = 6
    case debug = 7

    /// Ordered by severity: `.debug < .error`.
    package static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue > b.rawValue }

    package init?(name: String) {
        switch name.lowercased() {
        case "error": self = .error
        case "warning", "warn": self = .warning
        case "notice": self = .notice
        case "info": self = .info
        case "debug": self = .debug
        default: return nil
        }
    }
}
