import Logging
import TestSupport
import Testing

@testable import Platform

@Suite struct LoggerTests {
    @Test func linesBelowTheMinimumLevelAreDropped() {
        let (logger, capture) = Logger.capturing(component: "board", minimumLevel: .info)
        logger.debug("noise")
        logger.info("listening")
        logger.error("bind failed")
        #expect(capture.lines == ["board: listening", "board: bind failed"])
        #expect(capture.lines(at: .error) == ["board: bind failed"])
    }

    @Test func childLoggersNameTheirComponent() {
        let (logger, capture) = Logger.capturing(component: "board")
        logger.child("http").warning("403 from 10.0.0.7")
        #expect(capture.lines == ["board.http: 403 from 10.0.0.7"])
    }

    /// Text from outside (a request path, a board's error) cannot end the line and forge the next
    /// journal entry, drive the terminal or reorder what is read: every control, separator and format
    /// character is written as a visible escape, and nothing else changes (a backslash is kept: the
    /// escapes are for reading, not for decoding).
    @Test func controlCharactersInAMessageAreEscaped() {
        let (logger, capture) = Logger.capturing(component: "board")
        logger.notice("403 GET /x\n<3>aiden-board: forged\r\tend")
        logger.warning("board said \u{1B}[2J\u{07}\u{7F}\u{85}\u{9B}31m")
        logger.info("pay\u{202E}lanoitan\u{202C} \u{2066}\u{200E}\u{200F}\u{061C}\u{2069} a\u{2028}b\u{2029}")
        logger.info("\u{200B}\u{FEFF}\u{00AD}\u{E0041} 設定 ✅ é \\n")
        #expect(
            capture.lines == [
                #"board: 403 GET /x\n<3>aiden-board: forged\r\tend"#,
                #"board: board said \u{1b}[2J\u{7}\u{7f}\u{85}\u{9b}31m"#,
                #"board: pay\u{202e}lanoitan\u{202c} \u{2066}\u{200e}\u{200f}\u{61c}\u{2069} a\u{2028}b\u{2029}"#,
                #"board: \u{200b}\u{feff}\u{ad}\u{e0041} 設定 ✅ é \n"#,
            ])
    }

    /// What the default sink writes for such a message: one journal line, its priority prefix first.
    @Test func aJournalLineStaysOneLine() throws {
        let (logger, capture) = Logger.capturing(component: "phone")
        logger.error("board answered HTTP 500: oops\n<6>phone: all is well")
        let line = Logger.standardErrorLine(try #require(capture.entries.first), for: .journal)
        #expect(line == "<3>phone: board answered HTTP 500: oops\\n<6>phone: all is well\n")
        #expect(line.filter(\.isNewline).count == 1)
    }

    /// Prefixes are for journald only: a terminal (or a pipe, a file) gets the plain line, with the level word
    /// for the levels that ask for attention.
    @Test(arguments: [
        (LogLevel.error, LogDestination.journal, "<3>board: bind failed: in use\n"),
        (.error, .plain, "board: error: bind failed: in use\n"),
        (.warning, .journal, "<4>board: bind failed: in use\n"),
        (.warning, .plain, "board: warning: bind failed: in use\n"),
        (.notice, .plain, "board: bind failed: in use\n"),
        (.info, .journal, "<6>board: bind failed: in use\n"),
        (.info, .plain, "board: bind failed: in use\n"),
        (.debug, .plain, "board: bind failed: in use\n"),
    ])
    func standardErrorLinesFollowTheirDestination(level: LogLevel, destination: LogDestination, expected: String) {
        let entry = LogEntry(level: level, component: "board", message: "bind failed: in use")
        #expect(Logger.standardErrorLine(entry, for: destination) == expected)
    }

    @Test func fieldsReachTheSinkEscapedAndInTheirOrder() throws {
        let (logger, capture) = Logger.capturing(component: "board")
        logger.info(
            "task chat_1 started", fields: [.wakeSequence: "7", .requestID: "chat_1", .peer: "10.0.0.7\nPRIORITY=0"])
        let entry = try #require(capture.entries.first)
        #expect(entry.fields.map(\.name) == [.requestID, .peer, .wakeSequence])
        #expect(entry[.peer] == #"10.0.0.7\nPRIORITY=0"#)
        #expect(capture.entries(.requestID, "chat_1").count == 1)
    }

    @Test func levelsParseByNameAndOrderBySeverity() {
        #expect(LogLevel(name: "WARN") == .warning)
        #expect(LogLevel(name: "loud") == nil)
        #expect(!(LogLevel.error < LogLevel.debug))
        #expect(LogLevel.debug < LogLevel.error)
    }
}
