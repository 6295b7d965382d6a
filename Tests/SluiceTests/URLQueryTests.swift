import Foundation
import Sluice
import Testing

@Suite("URLQuery")
struct URLQueryTests {
    @Test func appendsBeforeTheFragmentWithTheRightSeparator() throws {
        #expect(try URLQuery.appending("a=1", to: URL(string: "https://x.example/p")!).absoluteString == "https://x.example/p?a=1")
        #expect(try URLQuery.appending("a=1", to: URL(string: "https://x.example/p?q=0#top")!).absoluteString == "https://x.example/p?q=0&a=1#top")
        #expect(try URLQuery.appending("a=1", to: URL(string: "https://x.example/p?")!).absoluteString == "https://x.example/p?a=1")
        #expect(try URLQuery.appending("", to: URL(string: "https://x.example/p")!).absoluteString == "https://x.example/p")
    }

    /// A request keeps a strictly encoded query as text (the transport sends it, nothing parses
    /// it); reading `url` gives exactly what the eager path gives, and other pairs take that path.
    @Test(arguments: [
        "https://x.example/p", "https://x.example/p?q=0#top", "https://user:pw@x.example:8443/a/b?", "http://127.0.0.1:8080/p?x=%20&y",
    ])
    func aRequestKeepsAnAddedQueryAsTextAndReadsTheSameURL(_ start: String) async throws {
        let pairs = "timestamp=1700000000&nonce=4b-%7E_.~x&sign=A%2Bb"
        var request = HTTPRequest(url: URL(string: start)!)
        let copy = request
        try request.appendQuery(encoded: pairs)
        let eager = try URLQuery.appending(pairs, to: URL(string: start)!)
        #expect(request.urlText == eager.absoluteString)
        #expect(request.authorityURL.absoluteString == start)  // the URL the query was added to
        // Read from many tasks at once: one parse, the same URL for all.
        let read = request
        let urls = try await withThrowingTaskGroup(of: URL.self) { group in
            for _ in 0..<8 { group.addTask { read.url } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(urls.allSatisfy { $0 == eager })
        #expect(copy.url.absoluteString == start)  // the request it was copied from is unchanged

        // Pairs added twice: both in the text, the authority still the first URL's.
        var twice = request
        try twice.appendQuery(encoded: "second=2")
        #expect(twice.urlText == (try URLQuery.appending("second=2", to: eager)).absoluteString)
        #expect(twice.url == (try URLQuery.appending("second=2", to: eager)))
        #expect(twice.authorityURL.absoluteString == start)

        // Changing the URL afterwards works on the parsed one.
        var changed = request
        changed.url = changed.url.appendingPathComponent("more")
        #expect(changed.url == eager.appendingPathComponent("more"))
        #expect(request.url == eager)
    }

    /// Pairs with bytes a strict encoder never writes go the eager way: Foundation's parser
    /// encodes what a query cannot hold, and the text sent is the parsed URL's.
    @Test(arguments: [("a=b/c:d", "a=b/c:d"), ("a=b c", "a=b%20c"), ("a=%zz", "a=%25zz"), ("a=%", "a=%25"), ("a=é", "a=%C3%A9")])
    func pairsNotStrictlyEncodedAreParsedAtOnce(_ pairs: String, _ sent: String) throws {
        var request = HTTPRequest(url: URL(string: "https://x.example/p")!)
        try request.appendQuery(encoded: pairs)
        #expect(request.url.absoluteString == "https://x.example/p?" + sent)
        #expect(request.urlText == request.url.absoluteString)
    }

    /// The strict check keeps the unreserved characters, `=` and `&`, and nothing else.
    @Test func theStrictCheckKeepsExactlyUnreservedEqualsAndAmpersand() {
        for byte in UInt8(0)...UInt8(255) where byte != UInt8(ascii: "%") {
            let text = String(decoding: [UInt8(ascii: "a"), byte], as: UTF8.self)
            let expected = byte < 128 && (PercentEncoding.isUnreserved(byte) || byte == UInt8(ascii: "=") || byte == UInt8(ascii: "&"))
            #expect(URLQuery.isStrictlyEncoded(text) == expected, "byte \(byte)")
        }
        #expect(URLQuery.isStrictlyEncoded("a=%2F&b=%7e"))
        #expect(!URLQuery.isStrictlyEncoded("a=%2"))
        #expect(!URLQuery.isStrictlyEncoded("a=%g0"))
    }
}
