import Foundation

/// HTTP dates (RFC 9110 §5.6.7): reads all three formats, writes the preferred one.
///
/// Parsing is done by hand, without `DateFormatter`, so it is fast and independent of the locale and
/// time zone. Times are whole seconds in UTC ("GMT").
///
/// ```swift
/// HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT")     // IMF-fixdate
/// HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT")    // obsolete RFC 850 form
/// HTTPDate.parse("Sun Nov  6 08:49:37 1994")          // obsolete asctime form
/// HTTPDate.format(Date(timeIntervalSince1970: 784111777))   // "Sun, 06 Nov 1994 08:49:37 GMT"
/// ```
public enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let dayNames = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday

    /// The date in `text`, or nil when it is none of the three formats or not a real date.
    public static func parse(_ text: some StringProtocol) -> Date? {
        var string = String(text)
        return string.withUTF8 { bytes -> Date? in
            // Words: runs of ASCII letters or digits; everything else separates them.
            var words: [UnsafeBufferPointer<UInt8>] = []
            var start = -1
            for index in 0...bytes.count {
                let isPart = index < bytes.count && isAlphanumeric(bytes[index])
                if isPart, start < 0 { start = index }
                if !isPart, start >= 0 {
                    words.append(UnsafeBufferPointer(rebasing: bytes[start..<index]))
                    start = -1
                }
                if words.count > 8 { return nil }
            }
            guard words.count >= 7 else { return nil }

            let day: Int?, month: Int?, year: Int?, time: (Int, Int, Int)?
            if let numeric = number(words[1]) {
                // IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT" or RFC 850 "Sunday, 06-Nov-94 08:49:37 GMT"
                guard words.count == 8, equalsIgnoringCase(words[7], "gmt") else { return nil }
                day = numeric
                month = monthNumber(words[2])
                // RFC 9110: four digits, or two in RFC 850 (a longer year once overflowed Retry-After).
                year =
                    switch words[3].count {
                    case 2: number(words[3]).map(twoDigitYear)
                    case 4: number(words[3])
                    default: nil
                    }
                time = clock(words[4], words[5], words[6])
            } else {
                // asctime "Sun Nov  6 08:49:37 1994"
                guard words.count == 7 else { return nil }
                month = monthNumber(words[1])
                day = number(words[2])
                time = clock(words[3], words[4], words[5])
                year = words[6].count == 4 ? number(words[6]) : nil
            }
            guard let day, let month, let year, let (hour, minute, second) = time,
                (1...31).contains(day), day <= daysIn(month: month, year: year), year >= 1900
            else { return nil }
            let days = daysFromCivil(year: year, month: month, day: day)
            return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
        }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
    }

    /// The decimal value of an all-digit word of at most nine digits.
    private static func number(_ word: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !word.isEmpty, word.count <= 9 else { return nil }
        var value = 0
        for byte in word {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    private static func equalsIgnoringCase(_ word: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
        guard word.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        return zip(word, expected).allSatisfy { $0 | 0x20 == $1 }
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

    private static func monthNumber(_ word: UnsafeBufferPointer<UInt8>) -> Int? {
        guard word.count == 3 else { return nil }
        let lowered = String(decoding: word.map { $0 | 0x20 }, as: UTF8.self)
        return months.firstIndex(of: lowered).map { $0 + 1 }
    }

    private static func clock(
        _ hour: UnsafeBufferPointer<UInt8>, _ minute: UnsafeBufferPointer<UInt8>, _ second: UnsafeBufferPointer<UInt8>
    ) -> (Int, Int, Int)? {
        guard hour.count == 2, minute.count == 2, second.count == 2,
            let h = number(hour), let m = number(minute), let s = number(second),
            h < 24, m < 60, s < 61
        else { return nil }
        return (h, m, min(s, 59))
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
