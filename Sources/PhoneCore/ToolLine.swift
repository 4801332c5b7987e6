import FoundationEssentials
import WireFormat

/// The card's tool line: what the agent's tool is doing now (`tool_status`) and for how long (from the board's
/// `tool_started_at`), `Tool: Reading the screen · 1m 05s`. Nil when the board sends no tool line (an older
/// board of ours) or an empty one. The time is the board's stamp against the phone's wall clock: a stamp that
/// does not parse, or lies ahead of the phone's clock, shows the line without a time rather than a wrong one.
package enum ToolLine {
    package static func text(of snapshot: SnapshotView?, at wall: Date?) -> String? {
        guard let status = snapshot?.toolStatus.map(BoardText.clean), !status.isEmpty else { return nil }
        guard let wall, let started = snapshot?.toolStartedAt.flatMap(parse) else { return "Tool: \(status)" }
        let seconds = wall.timeIntervalSince(started)
        guard seconds.isFinite, seconds >= 0 else { return "Tool: \(status)" }
        return "Tool: \(status) · \(elapsed(Int(seconds)))"
    }

    /// `42s`, `1m 05s`, `2h 03m`: short, and one width per unit so a redraw does not jump.
    package static func elapsed(_ seconds: Int) -> String {
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3600 { return "\(seconds / 60)m " + twoDigits(seconds % 60) + "s" }
        return "\(seconds / 3600)h " + twoDigits(seconds / 60 % 60) + "m"
    }

    /// RFC 3339 in UTC, with or without fractional seconds (`2026-06-12T07:00:02Z`, `…:02.123Z`).
    static func parse(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}

extension ToolLine {
    /// `07:00:02 UTC` for a `tool_started_at`, for surfaces that are not redrawn every second (the desktop's
    /// notifications); nil when it does not parse.
    package static func since(_ stamp: String?) -> String? {
        guard let date = stamp.flatMap(parse) else { return nil }
        let text = date.formatted(.iso8601)  // 2026-06-12T07:00:02Z
        guard let time = text.split(separator: "T").last?.dropLast() else { return nil }
        return time + " UTC"
    }
}
