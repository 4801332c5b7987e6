import FoundationEssentials

/// `2026-06-12T07:00:00.000Z`: the `at` of every `--json` event. Always with milliseconds (fixed
/// width, sorts as text), rounded rather than truncated so `.123` stays `.123`.
enum UTCTimestamp {
    static func format(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.toNearestOrAwayFromZero)
        guard milliseconds.isFinite, abs(milliseconds) < 1e15 else { return "1970-01-01T00:00:00.000Z" }
        let total = Int64(milliseconds)
        let (seconds, fraction) = floorDivision(total, 1000)
        let whole = Date(timeIntervalSince1970: Double(seconds)).formatted(.iso8601)
        let digits = String(fraction)
        return whole.dropLast() + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let quotient = value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
        return (quotient, value - quotient * divisor)
    }
}
