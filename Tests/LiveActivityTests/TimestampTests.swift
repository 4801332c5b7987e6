import FoundationEssentials
import Testing

@testable import LiveActivity

@Suite struct TimestampTests {
    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00Z"),
        (-1.0, "1969-12-31T23:59:59Z"),
        (1_709_208_000.0, "2024-02-29T12:00:00Z"),
        (1_781_247_602.0, "2026-06-12T07:00:02Z"),
        (1_781_247_602.123, "2026-06-12T07:00:02.123Z"),
        (1_781_247_602.5, "2026-06-12T07:00:02.500Z"),
        (1_781_247_602.0004, "2026-06-12T07:00:02Z"),
        (951_782_400.0, "2000-02-29T00:00:00Z"),
        (253_402_300_799.0, "9999-12-31T23:59:59Z"),
    ])
    func formatsUTCWithMillisecondsOnlyWhenPresent(seconds: Double, expected: String) {
        #expect(Timestamp.format(Date(timeIntervalSince1970: seconds)) == expected)
    }

    @Test(arguments: [
        ("2026-06-12T07:00:02Z", 1_781_247_602_000 as Int64),
        ("2026-06-12T07:00:02.1Z", 1_781_247_602_100),
        ("2026-06-12T07:00:02.123Z", 1_781_247_602_123),
        ("2026-06-12T07:00:02.123999Z", 1_781_247_602_123),
        ("2026-06-12T09:00:02+02:00", 1_781_247_602_000),
        ("2026-06-12T06:30:02-00:30", 1_781_247_602_000),
        ("2024-02-29T12:00:00Z", 1_709_208_000_000),
    ])
    func parsesZuluOffsetsAndFractions(text: String, milliseconds: Int64) throws {
        let date = try #require(Timestamp.parse(text))
        #expect(Timestamp.milliseconds(of: date) == milliseconds)
    }

    @Test(arguments: [
        "", "2026-06-12", "2026-06-12T07:00:02", "2026-06-12 07:00:02Z", "2026-06-12T07:00:02z",
        "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-06-12T24:00:00Z",
        "2026-06-12T07:60:00Z", "2026-06-12T07:00:60Z", "2026-06-12T07:00:02.Z", "2026-06-12T07:00:02Zjunk",
        "2026-06-12T07:00:02+0200", "26-06-12T07:00:02Z", "2026-06-12T07:00:0xZ",
    ])
    func rejectsMalformedTimestamps(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test(arguments: [0.0, 0.0004, 0.0006, 0.123, 0.999_6, 1_781_247_602.123_456, 1_781_247_602.999_9, -0.5])
    func normalizedDatesSurviveATextRoundTripExactly(offset: Double) throws {
        let date = Timestamp.normalized(at(offset))
        #expect(Timestamp.normalized(date) == date)
        #expect(try #require(Timestamp.parse(Timestamp.format(date))) == date)
    }
}
