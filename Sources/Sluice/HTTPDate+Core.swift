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
    private static let dayNames = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]   // 1970-01-01 was a Thursday

    /// The date in `text`, or nil when it is none of the three formats or not a real date.
    public static func parse(_ text: some StringProtocol) -> Date? {
        // Words: letters or digits runs; separators are spaces, commas, dashes and colons.
        var words: [Substring] = []
        let string = String(text)
        var start: String.Index?
        for index in string.indices {
            let character = string[index]
            let isPart = character.isLetter || character.isNumber
            if isPart, start == nil { start = index }
            if !isPart, let begun = start {
                words.append(string[begun..<index])
                start = nil
            }
        }
        if let begun = start { words.append(string[begun...]) }
        guard words.count >= 7 else { return nil }

        let day: Int?, month: Int?, year: Int?, time: (Int, Int, Int)?
        if let numeric = Int(words[1]) {
            // IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT" or RFC 850 "Sunday, 06-Nov-94 08:49:37 GMT"
            guard words.count == 8, words[7].lowercased() == "gmt" else { return nil }
            day = numeric
            month = monthNumber(words[2])
            year = Int(words[3]).map { words[3].count == 2 ? twoDigitYear($0) : $0 }
            time = clock(words[4], words[5], words[6])
        } else {
            // asctime "Sun Nov  6 08:49:37 1994"
            guard words.count == 7 else { return nil }
            month = monthNumber(words[1])
            day = Int(words[2])
            time = clock(words[3], words[4], words[5])
            year = words[6].count == 4 ? Int(words[6]) : nil
        }
        guard let day, let month, let year, let (hour, minute, second) = time,
              (1...31).contains(day), day <= daysIn(month: month, year: year), year >= 1900 else { return nil }
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

    private static func monthNumber(_ word: Substring) -> Int? {
        months.firstIndex(of: word.lowercased()).map { $0 + 1 }
    }

    private static func clock(_ hour: Substring, _ minute: Substring, _ second: Substring) -> (Int, Int, Int)? {
        guard hour.count == 2, minute.count == 2, second.count == 2,
              let h = Int(hour), let m = Int(minute), let s = Int(second),
              h < 24, m < 60, s < 61 else { return nil }
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
