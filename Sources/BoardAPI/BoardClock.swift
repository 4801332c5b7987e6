import FoundationEssentials
import LiveActivity

/// Which clock stamps the board's timestamps (docs/protocol.md §3.7). A board often has no RTC and no NTP: its
/// wall clock may read 1970 after boot, or be far off. The phone reports its wall clock (`phone_time` in
/// `POST /api/phone/app-state`, inside the fixed range `plausible`); the first such report of the daemon's run
/// decides, against the board's own wall clock (never against the stamps, which may already be the phone's): when
/// that is unset (before 2024-01-01) or more than 300 s off, the board stamps with its monotonic clock plus the
/// offset learned from that report for the rest of the run. Later reports move nothing, so no series of reports
/// walks the stamps anywhere; a restart decides again. Stamps only: staleness, abandonment, retention and
/// dismissal run on the monotonic clock whatever the source (`TaskStore.anchorClocks`). Pure: the shell passes
/// the clocks in.
package struct BoardClock: Sendable, Equatable {
    package enum Source: String, Sendable, Equatable, Encodable {
        case board
        case phone
    }

    /// 2024-01-01T00:00:00Z: a board clock before it is unset; a phone time before it is refused.
    package static let setSince = Date(timeIntervalSince1970: 1_704_067_200)
    /// 2100-01-01T00:00:00Z: a phone time from it on is refused.
    package static let plausibleUntil = Date(timeIntervalSince1970: 4_102_444_800)
    /// The phone times taken at all; fixed, so that no report widens it for the next.
    package static let plausible = setSince..<plausibleUntil
    /// How far the board's clock may be off the phone's before the phone's is used.
    package static let tolerance: Double = 300

    /// The phone's wall clock minus the board's monotonic clock, from the report that made the phone the
    /// source; nil while the board's own clock is used.
    package private(set) var phoneOffset: Duration?
    /// Whether a report with the phone's time has decided the source for this run.
    package private(set) var decided = false

    package init() {}

    package var source: Source { phoneOffset == nil ? .board : .phone }

    /// The time to stamp with.
    package func now(wall: Date, instant: Duration) -> Date {
        guard let phoneOffset else { return wall }
        let (seconds, attoseconds) = (instant + phoneOffset).components
        return Date(timeIntervalSince1970: Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// Whole seconds between the stamps and the board's own wall clock (0 while the board's clock is used).
    package func offsetSeconds(wall: Date, instant: Duration) -> Int {
        Int(now(wall: wall, instant: instant).timeIntervalSince(wall).rounded())
    }

    /// Takes a phone report of its wall clock (already inside `plausible`) into account: the first of the run
    /// decides the source, against the board's own wall clock `wall`; every later one is ignored. Returns whether
    /// this report decided.
    @discardableResult
    package mutating func learn(phoneTime: Date, wall: Date, instant: Duration) -> Bool {
        guard !decided, Self.plausible.contains(phoneTime) else { return false }
        decided = true
        switch Self.source(boardWall: wall, phoneTime: phoneTime) {
        case .board:
            phoneOffset = nil
        case .phone:
            let phone = Duration.milliseconds(Int64((phoneTime.timeIntervalSince1970 * 1000).rounded()))
            phoneOffset = phone - instant
        }
        return true
    }

    /// The decision: the board's clock unless it is unset or more than `tolerance` off the phone's.
    package static func source(boardWall: Date, phoneTime: Date) -> Source {
        if boardWall < setSince || abs(boardWall.timeIntervalSince(phoneTime)) > tolerance { return .phone }
        return .board
    }
}

/// `"clock": {"source": "board"|"phone", "offset_seconds": N}` in `/status`.
package struct ClockFacts: Sendable, Equatable, Encodable {
    package var source: BoardClock.Source
    /// Stamps minus the board's own wall clock, in whole seconds.
    package var offsetSeconds: Int

    package init(source: BoardClock.Source = .board, offsetSeconds: Int = 0) {
        self.source = source
        self.offsetSeconds = offsetSeconds
    }

    enum CodingKeys: String, CodingKey {
        case source
        case offsetSeconds = "offset_seconds"
    }
}
