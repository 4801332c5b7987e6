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

    @Test func levelsParseByNameAndOrderBySeverity() {
        #expect(LogLevel(name: "WARN") == .warning)
        #expect(LogLevel(name: "loud") == nil)
        #expect(!(LogLevel.error < LogLevel.debug))
        #expect(LogLevel.debug < LogLevel.error)
    }
}
