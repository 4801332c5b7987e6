import Logging
import Testing

/// A failure that repeats is logged once, summarised at most once per interval, and once when it ends.
@Suite struct RepeatedFailureLogTests {
    enum Attempt {
        case fails(String)
        case works
    }

    /// Each row: the attempt at time t (seconds), and the line logged for it (nil: none).
    static let timeline: [(at: Int, attempt: Attempt, logged: String?)] = [
        (0, .works, nil),
        (1, .fails("ENOSPC"), "writing tasks.json failed: ENOSPC"),
        (2, .fails("ENOSPC"), nil),
        (3, .fails("ENOSPC"), nil),
        (60, .fails("ENOSPC"), nil),
        // One interval after the last line: the failures since then, counted.
        (61, .fails("ENOSPC"), "writing tasks.json still failing, 4 times in the last 60 s: ENOSPC"),
        (62, .fails("EIO"), nil),
        (120, .fails("EIO"), nil),
        (150, .fails("EIO"), "writing tasks.json still failing, 3 times in the last 89 s: EIO"),
        (151, .works, "writing tasks.json works again, after failing 8 times over 150 s"),
        (152, .works, nil),
        // A new run of failures starts over: its first failure is logged in full.
        (200, .fails("ENOSPC"), "writing tasks.json failed: ENOSPC"),
        (201, .works, "writing tasks.json works again, after failing once over 1 s"),
    ]

    @Test func aTimelineOfFailuresGivesOneLineAMinuteAtMost() {
        var log = RepeatedFailureLog("writing tasks.json", level: .error, interval: .seconds(60))
        for row in Self.timeline {
            let now = Duration.seconds(row.at)
            let line: (level: LogLevel, message: String)?
            let level: LogLevel
            switch row.attempt {
            case let .fails(detail):
                line = log.failed(detail, at: now)
                level = .error
            case .works:
                line = log.succeeded(at: now)
                level = .notice
            }
            #expect(line?.message == row.logged, "t = \(row.at) s")
            if line != nil { #expect(line?.level == level, "t = \(row.at) s") }
            #expect(log.isFailing == (row.attempt.failed), "t = \(row.at) s")
        }
    }

    @Test func failuresEverySecondForTenMinutesGiveElevenLines() {
        var log = RepeatedFailureLog("delivering Wakes", level: .warning)
        var lines: [String] = []
        for second in 0..<600 {
            if let line = log.failed("not registered with bluetoothd", at: .seconds(second)) {
                lines.append(line.message)
            }
        }
        if let line = log.succeeded(at: .seconds(600)) { lines.append(line.message) }
        #expect(lines.count == 11)
        #expect(lines.first == "delivering Wakes failed: not registered with bluetoothd")
        #expect(lines.dropFirst().dropLast().allSatisfy { $0.contains("still failing, 60 times in the last 60 s") })
        #expect(lines.last == "delivering Wakes works again, after failing 600 times over 600 s")
    }
}

extension RepeatedFailureLogTests.Attempt {
    var failed: Bool {
        if case .fails = self { true } else { false }
    }
}
