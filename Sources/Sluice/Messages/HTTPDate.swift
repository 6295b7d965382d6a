import Foundation

/// HTTP dates (RFC 9110 §5.6.7): reads all three formats, writes the preferred one.
///
/// Parsing is done by hand, without `DateFormatter`, so it is fast and independent of the locale and
/// time zone. Times are whole seconds in UTC ("GMT").
///
/// ```swift
/// import Foundation
/// import Sluice
///
/// HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT")     // IMF-fixdate
/// HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT")    // obsolete RFC 850 form
/// HTTPDate.parse("Sun Nov  6 08:49:37 1994")          // obsolete asctime form
/// HTTPDate.format(Date(timeIntervalSince1970: 784111777))   // "Sun, 06 Nov 1994 08:49:37 GMT"
/// ```
public enum HTTPDate {
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let dayNames = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday

    /// The date in `text`, or nil when it is none of the three formats, exactly as RFC 9110's
    /// grammar writes them (case-sensitive names, single spaces, a comma after the day name, a
    /// four-digit year except in the RFC 850 form, colons in the time, `GMT`, nothing after), or
    /// not a real date.
    public static func parse(_ text: some StringProtocol) -> Date? {
        var string = String(text)
        return string.withUTF8 { bytes -> Date? in
            switch bytes.count {
            case 29: return imfFixdate(bytes)
            case 24: return asctime(bytes)
            case 30...33: return rfc850(bytes)
            default: return nil
            }
        }
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    private static func imfFixdate(_ b: UnsafeBufferPointer<UInt8>) -> Date? {
        guard isDayName(b, 0), b[3] == comma, b[4] == space, b[7] == space, b[11] == space,
            b[16] == space, b[25] == space, code(b, 26) == gmtCode,
            let day = digits(b, 5, 2), let month = month(b, 8), let year = digits(b, 12, 4), let time = time(b, 17)
        else { return nil }
        return date(year: year, month: month, day: day, time: time)
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`
    private static func rfc850(_ b: UnsafeBufferPointer<UInt8>) -> Date? {
        guard let name = longDayNames.first(where: { matches(b, 0, $0) }) else { return nil }
        let i = name.count
        guard b.count == i + 24, b[i] == comma, b[i + 1] == space, b[i + 4] == dash, b[i + 8] == dash, b[i + 11] == space,
            b[i + 20] == space, matches(b, i + 21, "GMT"),
            let day = digits(b, i + 2, 2), let month = month(b, i + 5), let year = digits(b, i + 9, 2), let time = time(b, i + 12)
        else { return nil }
        return date(year: twoDigitYear(year), month: month, day: day, time: time)
    }

    /// `Sun Nov  6 08:49:37 1994`
    private static func asctime(_ b: UnsafeBufferPointer<UInt8>) -> Date? {
        guard isDayName(b, 0), b[3] == space, b[7] == space, b[10] == space, b[19] == space,
            let month = month(b, 4), let time = time(b, 11), let year = digits(b, 20, 4)
        else { return nil }
        // The day is two digits, or a space and one digit.
        let day = b[8] == space ? digits(b, 9, 1) : digits(b, 8, 2)
        guard let day else { return nil }
        return date(year: year, month: month, day: day, time: time)
    }

    private static let space = UInt8(ascii: " ")
    private static let comma = UInt8(ascii: ",")
    private static let dash = UInt8(ascii: "-")
    private static let colon = UInt8(ascii: ":")
    private static let longDayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// Whether `b` holds `word`, byte for byte, at `offset`.
    private static func matches(_ b: UnsafeBufferPointer<UInt8>, _ offset: Int, _ word: String) -> Bool {
        let utf8 = word.utf8
        guard offset + utf8.count <= b.count else { return false }
        return zip(b[offset..<(offset + utf8.count)], utf8).allSatisfy { $0 == $1 }
    }

    /// The decimal value of exactly `count` digits at `offset`.
    private static func digits(_ b: UnsafeBufferPointer<UInt8>, _ offset: Int, _ count: Int) -> Int? {
        guard offset + count <= b.count else { return nil }
        var value = 0
        for byte in b[offset..<(offset + count)] {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    /// The month (1–12) named at `offset`, exactly as the grammar writes it (`Jan` … `Dec`).
    private static func month(_ b: UnsafeBufferPointer<UInt8>, _ offset: Int) -> Int? {
        monthCodes.firstIndex(of: code(b, offset)).map { $0 + 1 }
    }

    /// Whether a three-letter day name (`Sun`) is at `offset`.
    private static func isDayName(_ b: UnsafeBufferPointer<UInt8>, _ offset: Int) -> Bool {
        dayCodes.contains(code(b, offset))
    }

    /// The three bytes at `offset` as one number (0 when fewer are left): names compared at once.
    private static func code(_ b: UnsafeBufferPointer<UInt8>, _ offset: Int) -> UInt32 {
        guard offset + 3 <= b.count else { return 0 }
        return UInt32(b[offset]) << 16 | UInt32(b[offset + 1]) << 8 | UInt32(b[offset + 2])
    }

    private static func code(_ word: String) -> UInt32 {
        Array(word.utf8).withUnsafeBufferPointer { code($0, 0) }
    }

    private static let monthCodes = monthNames.map { code($0) }
    private static let dayCodes = dayNames.map { code($0) }
    private static let gmtCode = code("GMT")

    /// `hh:mm:ss` at `offset`.
    private static func time(_ b: UnsafeBufferPointer<UInt8>, _ offset: Int) -> (Int, Int, Int)? {
        guard offset + 8 <= b.count, b[offset + 2] == colon, b[offset + 5] == colon,
            let h = digits(b, offset, 2), let m = digits(b, offset + 3, 2), let s = digits(b, offset + 6, 2),
            h < 24, m < 60, s < 61
        else { return nil }
        return (h, m, min(s, 59))
    }

    private static func date(year: Int, month: Int, day: Int, time: (Int, Int, Int)) -> Date? {
        guard (1...31).contains(day), day <= daysIn(month: month, year: year), year >= 1900 else { return nil }
        let (hour, minute, second) = time
        let days = daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// `date` as an IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT` (fractions dropped).
    public static func format(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilFromDays(days)
        let weekday = dayNames[((days % 7) + 7) % 7]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekday), \(two(day)) \(monthNames[month - 1]) \(year) "
            + "\(two(secondOfDay / 3_600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }

    /// RFC 9110 §5.6.7: a two-digit year more than 50 years in the future is in the past century.
    private static func twoDigitYear(_ year: Int) -> Int {
        let now = civilFromDays(Int(Date().timeIntervalSince1970) / 86_400).year
        var full = now / 100 * 100 + year
        if full > now + 50 { full -= 100 }
        return full
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
