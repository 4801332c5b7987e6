/// How a failure that repeats is logged: its first occurrence in full, then while it goes on at most one
/// summary per `interval` ("… still failing, 57 times in the last 60 s: …"), and one line when it ends.
///
/// A full disk fails every lazy write (one a second) and every agent request; a Wake transport that is not
/// registered with bluetoothd fails every Wake (one per coalescing window). A line per attempt drowns the
/// journal in copies and tells the reader nothing new; one line and then silence hides that it goes on.
///
/// Pure: the caller passes the monotonic time of each attempt and logs the line it gets back, if any.
package struct RepeatedFailureLog: Sendable, Equatable {
    /// What fails, as the lines name it: "writing /var/lib/aiden-board/tasks.json".
    package let subject: String
    /// The least time between two summaries.
    package let interval: Duration
    /// The level of the first line and of the summaries (the recovery line is `notice`).
    package let level: LogLevel
    private var failing: Failing?

    private struct Failing: Sendable, Equatable {
        /// When the first failure of this run of failures happened.
        var since: Duration
        var total: Int
        /// When the last line about it was logged, and the failures since then.
        var reportedAt: Duration
        var sinceReport: Int
    }

    package init(_ subject: String, level: LogLevel = .error, interval: Duration = .seconds(60)) {
        self.subject = subject
        self.level = level
        self.interval = interval
    }

    /// Whether the last attempt failed.
    package var isFailing: Bool { failing != nil }

    /// An attempt failed at `now` with `detail`: the line to log, or nil when it repeats inside the interval.
    package mutating func failed(_ detail: String, at now: Duration) -> (level: LogLevel, message: String)? {
        guard var run = failing else {
            failing = Failing(since: now, total: 1, reportedAt: now, sinceReport: 0)
            return (level, "\(subject) failed: \(detail)")
        }
        run.total += 1
        run.sinceReport += 1
        defer { failing = run }
        guard now - run.reportedAt >= interval else { return nil }
        let message =
            "\(subject) still failing, \(Self.times(run.sinceReport)) in the last \(Self.seconds(now - run.reportedAt)): "
            + detail
        run.reportedAt = now
        run.sinceReport = 0
        return (level, message)
    }

    /// An attempt succeeded at `now`: the line saying the failure is over, or nil when nothing was failing.
    package mutating func succeeded(at now: Duration) -> (level: LogLevel, message: String)? {
        guard let run = failing else { return nil }
        failing = nil
        return (
            .notice,
            "\(subject) works again, after failing \(Self.times(run.total)) over \(Self.seconds(now - run.since))"
        )
    }

    private static func times(_ count: Int) -> String { count == 1 ? "once" : "\(count) times" }

    /// Whole seconds, rounded down: "60 s".
    private static func seconds(_ duration: Duration) -> String { "\(max(0, duration.components.seconds)) s" }
}
