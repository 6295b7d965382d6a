import Foundation
import Sluice
import SluiceTestSupport
import SluiceTesting
import Testing

@Suite("PercentEncoding")
struct PercentEncodingTests {
    @Test func strictlyEncodesAllButUnreservedPercentIncluded() {
        #expect(PercentEncoding.encodeStrictly("café au/lait&=+~") == "caf%C3%A9%20au%2Flait%26%3D%2B~")
        #expect(PercentEncoding.encodeStrictly("a/b c", keepingSlash: true) == "a/b%20c")
        #expect(PercentEncoding.encodeStrictly("50%25") == "50%2525")  // its % is data
        #expect(PercentEncoding.encodeStrictly("plain-name_1.x~") == "plain-name_1.x~")
    }

    @Test func aLocationKeepsItsEscapesAndReservedCharactersAndEncodesControlsSpacesAndNonASCII() {
        #expect(PercentEncoding.encodeControlsAndNonASCII("/a b?q=ü&x=%41#f\u{7F}") == "/a%20b?q=%C3%BC&x=%41#f%7F")
    }

    @Test func encodesWhatEachComponentMustAndKeepsExistingEscapes() {
        #expect(PercentEncoding.encode("a b/ü", keeping: .path) == "a%20b/%C3%BC")
        #expect(PercentEncoding.encode("a&b=c+d?", keeping: .queryItem) == "a%26b%3Dc%2Bd?")
        #expect(PercentEncoding.encode("a&b=c+d?", keeping: .query) == "a&b=c+d?")
        #expect(PercentEncoding.encode("x?y", keeping: .path) == "x%3Fy")
        #expect(PercentEncoding.encode("50%25 off", keeping: .path) == "50%25%20off")
        #expect(PercentEncoding.encode("50%25 off", keeping: .query) == "50%25%20off")
        #expect(PercentEncoding.encode("50%25 off", keeping: .queryItem) == "50%2525%20off")  // a value is data
        #expect(PercentEncoding.encode("100%", keeping: .queryItem) == "100%25")
        #expect(PercentEncoding.encode("%zz", keeping: .queryItem) == "%25zz")
        #expect(PercentEncoding.encode("-._~AZaz09", keeping: .queryItem) == "-._~AZaz09")
        #expect(PercentEncoding.encode("😀", keeping: .path) == "%F0%9F%98%80")
    }

    @Test func decodesAsFoundationDoesWithoutFoundation() {
        #expect(PercentEncoding.decode("caf%C3%A9%20au+lait") == "café au+lait")
        #expect(PercentEncoding.decode("caf%c3%a9+au+lait", plusIsSpace: true) == "café au lait")
        #expect(PercentEncoding.decode("a%2Bb+c", plusIsSpace: true) == "a+b c")  // an encoded plus stays a plus
        #expect(PercentEncoding.decode("plain") == "plain")
        #expect(PercentEncoding.decode("") == "")
        // Invalid: what removingPercentEncoding refuses, this refuses too.
        for text in ["100%", "%zz", "%4", "a%G1", "%FF", "%C3"] {
            #expect(PercentEncoding.decode(text) == nil, "\(text)")
            #expect(text.removingPercentEncoding == nil, "\(text)")
        }
        for text in ["a%20b", "%E2%82%AC", "x=%3D&y", "%F0%9F%98%80"] {
            #expect(PercentEncoding.decode(text) == text.removingPercentEncoding, "\(text)")
        }
    }

    @Test func urlsFromStringsWithUnsafeCharacters() throws {
        #expect(
            try PercentEncoding.url("https://example.com/naïve path?q=ä b&x=1#part two").absoluteString
                == "https://example.com/na%C3%AFve%20path?q=%C3%A4%20b&x=1#part%20two")
        #expect(try PercentEncoding.url("https://example.com/a%20b?c=%C3%A4").absoluteString == "https://example.com/a%20b?c=%C3%A4")
        #expect(try PercentEncoding.url("HTTP://example.com:8080").absoluteString == "http://example.com:8080")
    }

    @Test(arguments: [
        ("not a url", #""not a url" is not an absolute URL (no scheme://)"#),
        ("://host/x", #""://host/x" has an invalid scheme """#),
        ("ht tp://x", #""ht tp://x" has an invalid scheme "ht tp""#),
        ("http:///path", #""http:///path" has an invalid host """#),
        ("http://exa mple.com/", #""http://exa mple.com/" has an invalid host "exa mple.com""#),
        ("http://bücher.example/", #""http://bücher.example/" has an invalid host "bücher.example""#),
    ])
    func stringsThatCannotBeURLsAreInvalidURLErrorsQuotingThem(input: String, message: String) {
        #expect {
            _ = try PercentEncoding.url(input)
        } throws: { error in
            (error as? SluiceError)?.code == .invalidURL && (error as? SluiceError)?.message == message
        }
    }
}
