import Logging
import Platform
import Synchronization

/// Lines recorded by a capturing logger.
package final class LogCapture: Sendable {
    private let storage = Mutex<[(LogLevel, String)]>([])

    package init() {}

    package func append(_ level: LogLevel, _ line: String) {
        storage.withLock { $0.append((level, line)) }
    }

    package var lines: [String] { storage.withLock { $0.map(\.1) } }

    package func lines(at level: LogLevel) -> [String] {
        storage.withLock { $0.filter { $0.0 == level }.map(\.1) }
    }
}

extension Logger {
    /// A logger whose lines are kept in memory, for tests.
    package static func capturing(
        component: String = "test", minimumLevel: LogLevel = .debug
    )
        -> (Logger, LogCapture)
    {
        let capture = LogCapture()
        let logger = Logger(component: component, minimumLevel: minimumLevel) { level, line in
            capture.append(level, line)
        }
        return (logger, capture)
    }
}
