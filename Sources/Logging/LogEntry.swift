/// One log line as the logger hands it to a sink: its level, who logs it, the message and its structured
/// fields, all escaped already (`ControlCharacter.escaping`), so no sink can let text from outside end a line,
/// forge a journal entry or a field, or drive a terminal.
///
/// Pure: how the entry is written (a journal entry, a `<N>`-prefixed stderr line for journald, a plain line
/// for a terminal) is decided here and only carried out by the shells.
package struct LogEntry: Sendable, Equatable {
    package let level: LogLevel
    /// `aiden-board.engine`: the logger's component and its children's names.
    package let component: String
    package let message: String
    /// Sorted by field (`LogField`'s order); no field twice.
    package let fields: [Field]

    package struct Field: Sendable, Equatable {
        package let name: LogField
        package let value: String
    }

    package init(level: LogLevel, component: String, message: String, fields: [LogField: String] = [:]) {
        self.level = level
        self.component = ControlCharacter.escaping(component)
        self.message = ControlCharacter.escaping(message)
        self.fields = fields.sorted { $0.key < $1.key }.map {
            Field(name: $0.key, value: ControlCharacter.escaping($0.value))
        }
    }

    /// The value of `name`, nil when the entry does not carry it.
    package subscript(_ name: LogField) -> String? { fields.first { $0.name == name }?.value }

    /// `component: message`: the text of the line, without a level.
    package var line: String { "\(component): \(message)" }

    /// What a person reads on a terminal: the line, with the level word before the message for the levels that
    /// ask for attention (`aiden-board: error: …`, `aiden-board: warning: …`).
    package var terminalLine: String {
        switch level {
        case .error, .warning: "\(component): \(level.word): \(message)"
        case .notice, .info, .debug: line
        }
    }

    /// `<N>component: message` and a newline: what journald reads from a service's stderr (SyslogLevelPrefix=yes)
    /// when the entry cannot be sent to the journal directly. The fields are lost that way.
    package var journalLine: String { "<\(level.rawValue)>\(line)\n" }

    /// The journal entry's fields, one `NAME=value` each, for sd_journal_sendv: `MESSAGE`, `PRIORITY`,
    /// `SYSLOG_IDENTIFIER` (`identifier`, the program's name, as journald would take it from the unit), then the
    /// entry's fields. Every value is escaped, so none holds a line feed: a value cannot start another field even
    /// in the journal's plain `NAME=value\n` form (sd_journal_sendv also sends a value with a line feed
    /// length-prefixed).
    package func journalFields(identifier: String) -> [String] {
        ["MESSAGE=\(line)", "PRIORITY=\(level.rawValue)", "SYSLOG_IDENTIFIER=\(ControlCharacter.escaping(identifier))"]
            + fields.map { "\($0.name.rawValue)=\($0.value)" }
    }
}

extension LogLevel {
    /// The level's name as configured and as a terminal line shows it: `error`, `warning`, ….
    package var word: String {
        switch self {
        case .error: "error"
        case .warning: "warning"
        case .notice: "notice"
        case .info: "info"
        case .debug: "debug"
        }
    }
}
