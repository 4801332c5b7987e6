import FoundationEssentials
import LiveActivity
import Testing

@testable import BoardAPI

/// Which clock stamps: the board's own unless it is unset (before 2024-01-01) or more than 300 s off the phone's.
@Suite struct BoardClockTests {
    static let phone = Timestamp.parse("2026-06-12T07:00:00Z")!

    /// (the board's wall clock, seconds from the phone's time, or an absolute date; the source chosen)
    @Test(arguments: [
        (0.0, BoardClock.Source.board),
        (300, .board),
        (-300, .board),
        (300.001, .phone),
        (-301, .phone),
        (3600, .phone),
        (-86_400, .phone),
    ])
    func theSourceFollowsHowFarOffTheBoardIs(offset: Double, expected: BoardClock.Source) {
        #expect(BoardClock.source(boardWall: Self.phone.addingTimeInterval(offset), phoneTime: Self.phone) == expected)
    }

    @Test func anUnsetBoardClockTakesThePhonesEvenWhenClose() {
        let phone = Timestamp.parse("2024-01-01T00:01:00Z")!
        #expect(BoardClock.source(boardWall: Timestamp.parse("2023-12-31T23:59:59Z")!, phoneTime: phone) == .phone)
        #expect(BoardClock.source(boardWall: Date(timeIntervalSince1970: 0), phoneTime: phone) == .phone)
        #expect(BoardClock.source(boardWall: Timestamp.parse("2024-01-01T00:00:00Z")!, phoneTime: phone) == .board)
    }

    /// (phone time, the board's clock, plausible)
    @Test(arguments: [
        ("2024-01-01T00:00:00Z", "1970-01-01T00:00:10Z", true),
        ("2023-12-31T23:59:59.999Z", "2026-06-12T07:00:00Z", false),
        ("2033-12-31T00:00:00Z", "1970-01-01T00:00:10Z", true),
        ("2034-01-02T00:00:00Z", "1970-01-01T00:00:10Z", false),
        ("2036-06-11T00:00:00Z", "2026-06-12T07:00:00Z", true),
        ("2036-06-13T00:00:00Z", "2026-06-12T07:00:00Z", false),
    ])
    func theSanityWindow(phone: String, board: String, plausible: Bool) {
        #expect(
            BoardClock.isPlausible(phoneTime: Timestamp.parse(phone)!, boardNow: Timestamp.parse(board)!) == plausible)
    }

    /// A timeline: the board boots with its clock at 1970, the phone reports, the board's wall clock jumps.
    @Test func stampsFollowTheMonotonicClockPlusThePhonesOffsetThenTheBoardsAgain() {
        var clock = BoardClock()
        let boot = Date(timeIntervalSince1970: 5)
        #expect(clock.now(wall: boot, instant: .seconds(5)) == boot)
        #expect(clock.source == .board)

        clock.learn(phoneTime: Self.phone, wall: Date(timeIntervalSince1970: 10), instant: .seconds(10))
        #expect(clock.source == .phone)
        #expect(
            clock.now(wall: Date(timeIntervalSince1970: 70), instant: .seconds(70)) == Self.phone.addingTimeInterval(60)
        )
        // The board's wall clock jumps a day back: stamps go on with elapsed time.
        #expect(
            clock.now(wall: Date(timeIntervalSince1970: -86_330), instant: .seconds(80))
                == Self.phone.addingTimeInterval(70))
        #expect(
            clock.offsetSeconds(wall: Date(timeIntervalSince1970: 80), instant: .seconds(80))
                == Int(Self.phone.timeIntervalSince1970) - 10)

        // NTP set the board's clock: a report that agrees hands the stamps back to it.
        let synced = Self.phone.addingTimeInterval(100)
        clock.learn(phoneTime: synced.addingTimeInterval(2), wall: synced, instant: .seconds(110))
        #expect(clock.source == .board)
        #expect(clock.now(wall: synced, instant: .seconds(110)) == synced)
        #expect(clock.offsetSeconds(wall: synced, instant: .seconds(110)) == 0)
    }
}
