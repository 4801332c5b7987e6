import Logging
import Testing

/// The journal entry a log line becomes (sd_journal_sendv's fields): its message, priority and identifier, then
/// its structured fields, none of which text from outside can add to, end or rename.
@Suite struct LogEntryTests {
    @Test func anEntryListsItsMessagePriorityIdentifierAndFields() {
        let entry = LogEntry(
            level: .info, component: "aiden-board.engine", message: "task chat_1 started (any phone)",
            fields: [.transition: "started", .requestID: "chat_1"])
        #expect(
            entry.journalFields(identifier: "aiden-board") == [
                "MESSAGE=aiden-board.engine: task chat_1 started (any phone)", "PRIORITY=6",
                "SYSLOG_IDENTIFIER=aiden-board", "REQUEST_ID=chat_1", "TRANSITION=started",
            ])
    }

    /// A value (or a message) holding a line feed and a would-be field stays one field: its controls are escaped, so
    /// no value holds a line feed, the journal's field separator, or a NUL.
    @Test(arguments: [
        ("board-1\nPRIORITY=0", #"board-1\nPRIORITY=0"#),
        ("a\rb\u{0}c", #"a\rb\u{0}c"#),
        ("x\u{2028}MESSAGE=forged", #"x\u{2028}MESSAGE=forged"#),
        ("\u{1B}[2J", #"\u{1b}[2J"#),
        ("AA:BB:CC:DD:EE:FF", "AA:BB:CC:DD:EE:FF"),
        ("", ""),
    ])
    func aValueCannotInjectAField(value: String, sent: String) {
        let entry = LogEntry(
            level: .warning, component: "aiden-phone", message: "line\nPRIORITY=0", fields: [.peer: value])
        let fields = entry.journalFields(identifier: "aiden-phone")
        #expect(fields.count == 4)
        #expect(fields[0] == #"MESSAGE=aiden-phone: line\nPRIORITY=0"#)
        #expect(fields[1] == "PRIORITY=4")
        #expect(fields[3] == "PEER=\(sent)")
        #expect(fields.allSatisfy { !$0.contains("\n") && !$0.contains("\u{0}") })
    }

    @Test func everyFieldNameIsOneTheJournalAccepts() {
        for field in LogField.allCases {
            let name = field.rawValue
            #expect(!name.isEmpty && name.count <= 64 && name.first != "_" && !(name.first?.isNumber ?? true))
            #expect(name.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber || $0 == "_") })
        }
    }
}
