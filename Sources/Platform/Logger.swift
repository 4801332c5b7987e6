import Logging

#if canImport(Glibc)
import Glibc
#endif

/// A leveled logger that shells take as a parameter (cores never log).
///
/// Lines go to a sink; the default writes `<priority>component: message` to stderr, which
/// journald turns into the right priority (SyslogLevelPrefix=yes, the default). Tests pass a
/// `Logger.capturing()` logger (in TestSupport) and read the lines back.
///
/// Messages carry text from outside (a decoded request path, a board's error, a device name), so
/// every line is escaped before any sink sees it (`ControlCharacter.escaping`): a line feed in it
/// cannot end the line and forge the next journal entry, nor an escape sequence or a bidi control
/// drive the terminal the phone's log lines share with its card.
package struct Logger: Sendable {
    package typealias Sink = @Sendable (LogLevel, String) -> Void

    package let component: String
    package let minimumLevel: LogLevel
    private let sink: Sink

    package init(component: String, minimumLevel: LogLevel = .info, sink: @escaping Sink = Logger.stderrSink) {
        self.component = component
        self.minimumLevel = minimumLevel
        self.sink = sink
    }

    /// A logger for a sub-component that shares this logger's sink and level.
    package func child(_ name: String) -> Logger {
        Logger(component: "\(component).\(name)", minimumLevel: minimumLevel, sink: sink)
    }

    package func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level >= minimumLevel else { return }
        sink(level, ControlCharacter.escaping("\(component): \(message())"))
    }

    package func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    package func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    package func notice(_ message: @autoclosure () -> String) { log(.notice, message()) }
    package func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    package func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }

    /// `<priority>line` and a newline: what journald reads from a service's stderr.
    package static func journalLine(_ level: LogLevel, _ line: String) -> String {
        "<\(level.rawValue)>\(line)\n"
    }

    /// Writes one line per call with the journald priority prefix; a single write(2) keeps
    /// lines from concurrent threads whole.
    package static let stderrSink: Sink = { level, line in
        var bytes = Array(journalLine(level, line).utf8)
        bytes.withUnsafeMutableBytes { buffer in
            _ = write(2, buffer.baseAddress, buffer.count)
        }
    }
}
