import FoundationEssentials
import LiveActivity

/// Which clock stamps the board's timestamps. A board often has no RTC and no NTP: its wall clock may read
/// 1970 after boot, or be far off. The phone reports its wall clock (`phone_time` in `POST /api/phone/app-state`);
/// when the board's own clock is unset (before 2024-01-01) or more than 300 s off the phone's, the board stamps
/// with its monotonic clock plus the offset learned from the phone, until a report finds its own clock right
/// again. Stamps only: staleness and retention run on the monotonic clock whatever the source
/// (`TaskStore.anchorClocks`). Pure: the shell passes the clocks in.
package struct BoardClock: Sendable, Equatable {
    package enum Source: String, Sendable, Equatable, Encodable {
        case board
        case phone
    }

    /// 2024-01-01T00:00:00Z: a board clock before it is unset; a phone time before it is refused.
    package static let setSince = Date(timeIntervalSince1970: 1_704_067_200)
    /// How far the board's clock may be off the phone's before the phone's is used.
    package static let tolerance: Double = 300
    /// A phone time further ahead than this (of the board's clock, or of 2024-01-01 when that is unset) is refused.
    package static let maxAhead: Double = 10 * 365.25 * 86_400

    /// The phone's wall clock minus the board's monotonic clock, from the report that made the phone the
    /// source; nil while the board's own clock is used.
    package private(set) var phoneOffset: Duration?

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

    /// Takes a phone report of its wall clock (already inside `PhoneAppState`'s sanity window) into account.
    package mutating func learn(phoneTime: Date, wall: Date, instant: Duration) {
        switch Self.source(boardWall: wall, phoneTime: phoneTime) {
        case .board:
            phoneOffset = nil
        case .phone:
            let phone = Duration.milliseconds(Int64((phoneTime.timeIntervalSince1970 * 1000).rounded()))
            phoneOffset = phone - instant
        }
    }

    /// The decision: the board's clock unless it is unset or more than `tolerance` off the phone's.
    package static func source(boardWall: Date, phoneTime: Date) -> Source {
        if boardWall < setSince || abs(boardWall.timeIntervalSince(phoneTime)) > tolerance { return .phone }
        return .board
    }

    /// Whether a reported phone time is plausible: not before 2024-01-01 and at most 10 years ahead of the
    /// board's clock (of 2024-01-01 while that is unset).
    package static func isPlausible(phoneTime: Date, boardNow: Date) -> Bool {
        phoneTime >= setSince && phoneTime <= max(boardNow, setSince).addingTimeInterval(maxAhead)
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
