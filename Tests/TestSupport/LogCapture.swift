import Logging
import Platform
import Synchronization

/// Entries recorded by a capturing logger.
package final class LogCapture: Sendable {
    private let storage = Mutex<[LogEntry]>([])

    package init() {}

    package func append(_ entry: LogEntry) {
        storage.withLock { $0.append(entry) }
    }

    package var entries: [LogEntry] { storage.withLock { $0 } }

    /// Each entry as `component: message`.
    package var lines: [String] { entries.map(\.line) }

    package func lines(at level: LogLevel) -> [String] {
        entries.filter { $0.level == level }.map(\.line)
    }

    /// The entries that carry `value` in `field`: what `journalctl FIELD=value` would select.
    package func entries(_ field: LogField, _ value: String) -> [LogEntry] {
        entries.filter { $0[field] == value }
    }
}

extension Logger {
    /// A logger whose entries are kept in memory, for tests.
    package static func capturing(
        component: String = "test", minimumLevel: LogLevel = .debug
    )
        -> (Logger, LogCapture)
    {
        let capture = LogCapture()
        let logger = Logger(component: component, minimumLevel: minimumLevel, entries: { capture.append($0) })
        return (logger, capture)
    }
}
