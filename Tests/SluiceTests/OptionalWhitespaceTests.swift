import Sluice
import Testing

@Suite("Optional whitespace around field values")
struct OptionalWhitespaceTests {
    @Test(arguments: [
        (" gzip\t", "gzip"), ("\t \tmax-age=60  ", "max-age=60"), ("no-cache", "no-cache"), ("a b", "a b"), ("   ", ""), ("", ""),
        // Not OWS: a no-break space, a line feed and an ideographic space stay.
        ("\u{A0}gzip\u{A0}", "\u{A0}gzip\u{A0}"), ("gzip\n", "gzip\n"), (" café\u{3000} ", "café\u{3000}"),
    ])
    func onlySpacesAndTabsAtEitherEndAreTrimmed(text: String, expected: String) {
        #expect(text.trimmingOptionalWhitespace() == expected)
        #expect(("x,\(text),y".split(separator: ",", omittingEmptySubsequences: false)[1]).trimmingOptionalWhitespace() == expected)
    }
}
