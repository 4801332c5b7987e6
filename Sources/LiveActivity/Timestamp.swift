import FoundationEssentials

/// ISO-8601 UTC timestamps (`2026-06-12T07:00:02Z`, `…:02.123Z`) written and read by hand.
///
/// Why by hand: the core needs no calendar or locale machinery, and the store keeps every date at
/// whole milliseconds (`normalized`), so a `Date` survives a JSON round trip exactly.
package enum Timestamp {
    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z in milliseconds since 1970: the four-digit years.
    private static let millisecondRange: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

    /// The date rounded to whole milliseconds, the precision the JSON carries.
    package static func normalized(_ date: Date) -> Date {
        self.date(milliseconds: milliseconds(of: date))
    }

    /// `yyyy-MM-ddTHH:mm:ssZ`, with `.SSS` before the `Z` when the milliseconds are not zero.
    package static func format(_ date: Date) -> String {
        let total = milliseconds(of: date)
        let seconds = floorDivide(total, 1000)
        let millis = total - seconds * 1000
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
        text += pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if millis != 0 {
            text += "." + pad(millis, 3)
        }
        return text + "Z"
    }

    /// Reads `yyyy-MM-ddTHH:mm:ss[.fraction](Z|±hh:mm)`; digits past milliseconds are dropped.
    package static func parse(_ text: String) -> Date? {
        var reader = DigitReader(bytes: Array(text.utf8))
        guard let year = reader.number(digits: 4), reader.skip("-"),
            let month = reader.number(digits: 2), reader.skip("-"),
            let day = reader.number(digits: 2), reader.skip("T"),
            let hour = reader.number(digits: 2), reader.skip(":"),
            let minute = reader.number(digits: 2), reader.skip(":"),
            let second = reader.number(digits: 2)
        else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var millis: Int64 = 0
        if reader.skip(".") {
            guard let fraction = reader.fractionMilliseconds() else { return nil }
            millis = fraction
        }
        guard let offsetSeconds = reader.utcOffsetSeconds(), reader.isAtEnd else { return nil }
        let days = self.days(fromCivil: year, month, day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        let total = seconds * 1000 + millis
        guard millisecondRange.contains(total) else { return nil }
        return date(milliseconds: total)
    }

    static func milliseconds(of date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite else { return 0 }
        let clamped = min(max(value, Double(millisecondRange.lowerBound)), Double(millisecondRange.upperBound))
        return Int64(clamped)
    }

    static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func isLeap(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Howard Hinnant's `civil_from_days`: proleptic Gregorian date of a day count since 1970-01-01. The one calendar
    /// rule: the HTTP server's `Date` field uses it too.
    package static func civil(fromDays count: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = count + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Howard Hinnant's `days_from_civil`, the inverse of `civil(fromDays:)`.
    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// A cursor over the ASCII bytes of a timestamp.
private struct DigitReader {
    let bytes: [UInt8]
    var index = 0

    var isAtEnd: Bool { index == bytes.count }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    mutating func number(digits: Int) -> Int64? {
        guard index + digits <= bytes.count else { return nil }
        var value: Int64 = 0
        for byte in bytes[index..<index + digits] {
            guard let digit = Self.digit(byte) else { return nil }
            value = value * 10 + digit
        }
        index += digits
        return value
    }

    /// One or more digits after the dot, as whole milliseconds (extra digits truncated).
    mutating func fractionMilliseconds() -> Int64? {
        var value: Int64 = 0
        var count = 0
        while index < bytes.count, let digit = Self.digit(bytes[index]) {
            if count < 3 {
                value = value * 10 + digit
            }
            count += 1
            index += 1
        }
        guard count > 0 else { return nil }
        for _ in count..<max(count, 3) {
            value *= 10
        }
        return value
    }

    /// `Z` is zero; `+hh:mm` east of UTC is positive.
    mutating func utcOffsetSeconds() -> Int64? {
        if skip("Z") {
            return 0
        }
        let sign: Int64
        if skip("+") {
            sign = 1
        } else if skip("-") {
            sign = -1
        } else {
            return nil
        }
        guard let hours = number(digits: 2), skip(":"), let minutes = number(digits: 2),
            hours < 24, minutes < 60
        else { return nil }
        return sign * (hours * 3600 + minutes * 60)
    }

    private static func digit(_ byte: UInt8) -> Int64? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int64(byte - UInt8(ascii: "0")) : nil
    }
}
