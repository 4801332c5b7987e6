import LiveActivity

/// The `Date` field's value (RFC 9110 §5.6.7, `Sun, 06 Nov 1994 08:49:37 GMT`) for one second, computed from the
/// seconds since the epoch without the C library's time zone machinery. Pure: the loop reads the clock and asks for
/// a new one when the second changes.
struct HTTPDate: Equatable, Sendable {
    /// Seconds since 1970-01-01T00:00:00Z.
    let second: Int
    /// Always 29 ASCII bytes.
    let bytes: [UInt8]

    static let length = 29

    init(second: Int) {
        self.second = second
        let days = second >= 0 ? second / 86_400 : (second - 86_399) / 86_400
        let within = second - days * 86_400
        let (year, month, day) = Timestamp.civil(fromDays: Int64(days))
        // 1970-01-01 was a Thursday.
        let weekday = ((days % 7) + 7 + 4) % 7
        var text = Self.weekdays[weekday] + ", " + Self.twoDigits(Int(day)) + " " + Self.months[Int(month) - 1] + " "
        text += String(year) + " " + Self.twoDigits(within / 3600) + ":" + Self.twoDigits(within % 3600 / 60) + ":"
        text += Self.twoDigits(within % 60) + " GMT"
        bytes = Array(text.utf8)
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
