import Logging

#if canImport(Glibc)
import Glibc
#endif

/// A leveled logger that shells take as a parameter (cores never log).
///
/// Entries go to a sink. Where stderr is the journal (`LogDestination`), the daemons' sink sends each entry with
/// its structured fields (ServiceManager's `Journal`), falling back to a `<N>`-prefixed stderr line, which journald
/// turns into the right priority; anywhere else lines are plain (`component: message`, the level word for warnings
/// and errors). Tests pass a `Logger.capturing()` logger (in TestSupport) and read the entries back.
///
/// Messages and field values carry text from outside (a decoded request path, a board's error, a device name), so
/// every entry is escaped before any sink sees it (`LogEntry`): a line feed in it cannot end the line and forge the
/// next journal entry or a field, nor an escape sequence or a bidi control drive the terminal the phone's log lines
/// share with its card.
package struct Logger: Sendable {
    package typealias Sink = @Sendable (LogEntry) -> Void

    package let component: String
    package let minimumLevel: LogLevel
    private let sink: Sink

    package init(component: String, minimumLevel: LogLevel = .info, entries sink: @escaping Sink) {
        self.component = component
        self.minimumLevel = minimumLevel
        self.sink = sink
    }

    /// A logger that hands each sink the escaped `component: message` line (a terminal's line above the card, a
    /// quiet benchmark); without a sink, stderr as `Logger.standardErrorDestination()` finds it.
    package init(
        component: String, minimumLevel: LogLevel = .info, sink: (@Sendable (LogLevel, String) -> Void)? = nil
    ) {
        guard let sink else {
            self.init(
                component: component, minimumLevel: minimumLevel,
                entries: Logger.standardErrorSink(Logger.standardErrorDestination()))
            return
        }
        self.init(component: component, minimumLevel: minimumLevel, entries: { sink($0.level, $0.line) })
    }

    /// A logger for a sub-component that shares this logger's sink and level.
    package func child(_ name: String) -> Logger {
        Logger(component: "\(component).\(name)", minimumLevel: minimumLevel, entries: sink)
    }

    package func log(_ level: LogLevel, _ message: @autoclosure () -> String, fields: [LogField: String] = [:]) {
        guard level >= minimumLevel else { return }
        sink(LogEntry(level: level, component: component, message: message(), fields: fields))
    }

    package func error(_ message: @autoclosure () -> String, fields: [LogField: String] = [:]) {
        log(.error, message(), fields: fields)
    }
    package func warning(_ message: @autoclosure () -> String, fields: [LogField: String] = [:]) {
        log(.warning, message(), fields: fields)
    }
    package func notice(_ message: @autoclosure () -> String, fields: [LogField: String] = [:]) {
        log(.notice, message(), fields: fields)
    }
    package func info(_ message: @autoclosure () -> String, fields: [LogField: String] = [:]) {
        log(.info, message(), fields: fields)
    }
    package func debug(_ message: @autoclosure () -> String, fields: [LogField: String] = [:]) {
        log(.debug, message(), fields: fields)
    }

    /// The line for stderr going to `destination`: `<N>`-prefixed for the journal, plain otherwise.
    package static func standardErrorLine(_ entry: LogEntry, for destination: LogDestination) -> String {
        switch destination {
        case .journal: entry.journalLine
        case .plain: entry.terminalLine + "\n"
        }
    }

    /// Writes one line per entry to stderr; a single write(2) keeps lines from concurrent threads whole.
    package static func standardErrorSink(_ destination: LogDestination) -> Sink {
        { entry in
            var bytes = Array(standardErrorLine(entry, for: destination).utf8)
            bytes.withUnsafeMutableBytes { buffer in
                _ = write(2, buffer.baseAddress, buffer.count)
            }
        }
    }

    /// Whether this process's stderr is the journal: `JOURNAL_STREAM` against fstat(2) of descriptor 2.
    package static func standardErrorDestination() -> LogDestination {
        LogDestination.forStandardError(
            journalStream: getenv("JOURNAL_STREAM").map { String(cString: $0) },
            standardError: standardErrorIdentity())
    }

    /// journald's native socket, where sd_journal_sendv sends entries.
    package static let journalSocket = "/run/systemd/journal/socket"

    /// Whether `journalSocket` exists: sd_journal_sendv reports success when it does not (libsystemd drops the entry
    /// silently), so without it entries must go to stderr.
    package static func journalSocketExists() -> Bool { access(journalSocket, F_OK) == 0 }

    /// `st_dev` and `st_ino` of descriptor 2, nil when fstat fails (it is closed).
    package static func standardErrorIdentity() -> (device: UInt64, inode: UInt64)? {
        var status = stat()
        guard fstat(2, &status) == 0 else { return nil }
        return (UInt64(status.st_dev), UInt64(status.st_ino))
    }
}
