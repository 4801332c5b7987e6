import FoundationEssentials
import LiveActivity
import Testing

@testable import BoardAPI

/// Which clock stamps: the board's own unless it is unset (before 2024-01-01) or more than 300 s off the phone's
/// first report of the run; later reports move nothing.
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

    /// The fixed range: from 2024-01-01, before 2100-01-01, whatever any clock says.
    @Test(arguments: [
        ("2024-01-01T00:00:00Z", true),
        ("2023-12-31T23:59:59.999Z", false),
        ("2036-06-13T00:00:00Z", true),
        ("2099-12-31T23:59:59.999Z", true),
        ("2100-01-01T00:00:00Z", false),
        ("9999-12-31T23:59:59.999Z", false),
    ])
    func thePlausibleRange(phone: String, plausible: Bool) {
        #expect(BoardClock.plausible.contains(Timestamp.parse(phone)!) == plausible)
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

        // Later reports move nothing: not one that agrees with the board's clock, not one further off.
        let synced = Self.phone.addingTimeInterval(100)
        let agreed = clock.learn(phoneTime: synced.addingTimeInterval(2), wall: synced, instant: .seconds(110))
        #expect(!agreed)
        #expect(clock.source == .phone)
        #expect(clock.now(wall: synced, instant: .seconds(110)) == Self.phone.addingTimeInterval(100))
    }

    /// The walk a hostile process would try: each report as far ahead as allowed of the stamps the last one made.
    /// Only the first report counts, and none outside the fixed range counts at all, so the stamps stay put.
    @Test func aWalkOfReportsMovesTheStampsOnceAtMost() {
        var clock = BoardClock()
        let wall = Date(timeIntervalSince1970: 10)  // an unset board clock
        let first = clock.learn(phoneTime: Self.phone, wall: wall, instant: .seconds(10))
        #expect(first)
        for step in 1...1000 {
            let stamp = clock.now(wall: wall, instant: .seconds(10 + Int64(step)))
            let ahead = stamp.addingTimeInterval(10 * 365.25 * 86_400)
            let moved = clock.learn(phoneTime: ahead, wall: wall, instant: .seconds(10 + Int64(step)))
            #expect(!moved, "report \(step)")
        }
        #expect(clock.now(wall: wall, instant: .seconds(2010)) == Self.phone.addingTimeInterval(2000))
    }

    /// A time outside the range never decides, so a later plausible report still may.
    @Test func anImplausibleTimeDecidesNothing() {
        var clock = BoardClock()
        let far = Timestamp.parse("9999-12-31T23:59:59Z")!
        let farDecided = clock.learn(phoneTime: far, wall: Date(timeIntervalSince1970: 10), instant: .seconds(10))
        #expect(!farDecided)
        #expect(clock.source == .board && !clock.decided)
        let decided = clock.learn(phoneTime: Self.phone, wall: Date(timeIntervalSince1970: 10), instant: .seconds(10))
        #expect(decided)
        #expect(clock.source == .phone)
    }
}
