import Foundation
import Sluice
import Testing

@Suite("HTTPDate")
struct HTTPDateTests {
    let expected = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT

    @Test func readsTheThreeFormats() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == expected)
        #expect(HTTPDate.parse("Sun Nov 16 08:49:37 1994") == expected.addingTimeInterval(10 * 86_400))
        #expect(HTTPDate.parse("Wednesday, 16-Nov-94 08:49:37 GMT") == expected.addingTimeInterval(10 * 86_400))
    }

    @Test func writesIMFFixdate() {
        #expect(HTTPDate.format(expected) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 951_782_400)) == "Tue, 29 Feb 2000 00:00:00 GMT")
        for seconds in stride(from: 0, to: 4_000_000_000, by: 86_399 * 97) {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(HTTPDate.parse(HTTPDate.format(date)) == date)
        }
    }

    @Test(arguments: [
        "", "0", "-1", "tomorrow", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 31 Feb 1994 08:49:37 GMT",
        "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:49 GMT",
        "Sun Nov  6 08:49:37 94",
        // RFC 9110's year is four digits (two in RFC 850); the http-date fuzz target's crash had nine.
        "Sun, 06 Nov 999999999 08:49:37 GMT", "Sun, 06 Nov 19940 08:49:37 GMT", "Sun, 06 Nov 994 08:49:37 GMT",
        // RFC 9110 §5.6.7's grammar, exactly: names are case-sensitive, one space apart, a comma after
        // the day name, a four-digit year outside RFC 850, colons in the time, nothing after.
        "sun, 06 nov 1994 08:49:37 gmt", "Sun, 06 Nov 1994 08:49:37 gmt", "SUN, 06 NOV 1994 08:49:37 GMT",
        "Sun, 06 Nov 94 08:49:37 GMT", "Sun 06 Nov 1994 08:49:37 GMT", "Sun,  06 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov  1994 08:49:37 GMT", "Sun, 06-Nov-1994 08:49:37 GMT", "Sun, 06 Nov 1994 08.49.37 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT junk", "Sun, 06 Nov 1994 08:49:37 GMTX", " Sun, 06 Nov 1994 08:49:37 GMT",
        "Sun, 6 Nov 1994 08:49:37 GMT", "Sunday, 06 Nov 1994 08:49:37 GMT", "Sun, 06-Nov-94 08:49:37 GMT",
        "Sunday 06-Nov-94 08:49:37 GMT", "Sunday, 06-Nov-1994 08:49:37 GMT", "sunday, 06-nov-94 08:49:37 GMT",
        "Sun Nov 6 08:49:37 1994", "Sun Nov  6 08:49:37 1994 ", "Sun Nov 06 08:49:37 94", "Sun, Nov  6 08:49:37 1994",
        "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 8:49:37 GMT",
    ])
    func refusesWhatIsNotADate(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func readsLeapDaysAndTwoDigitYears() {
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 00:00:00 GMT") == Date(timeIntervalSince1970: 951_782_400))
        #expect(HTTPDate.parse("Thu, 29 Feb 2001 00:00:00 GMT") == nil)
        // A two-digit year more than 50 years ahead is in the past century (RFC 9110 §5.6.7):
        // written in 2026 or later, "80" is 1980, "26" is 2026.
        #expect(HTTPDate.parse("Tuesday, 01-Jan-80 00:00:00 GMT") == Date(timeIntervalSince1970: 315_532_800))
        #expect(HTTPDate.parse("Thursday, 01-Jan-26 00:00:00 GMT") == Date(timeIntervalSince1970: 1_767_225_600))
    }
}
