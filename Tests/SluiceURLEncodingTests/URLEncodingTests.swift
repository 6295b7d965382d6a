import Foundation
import Sluice
import SluiceCurl
import SluiceTestSupport
import SluiceTesting
import SluiceURLEncoding
import Testing

@Suite("PercentEncoding")
struct PercentEncodingTests {
    @Test func encodesWhatEachComponentMustAndKeepsExistingEscapes() {
        #expect(PercentEncoding.encode("a b/ü", keeping: .path) == "a%20b/%C3%BC")
        #expect(PercentEncoding.encode("a&b=c+d?", keeping: .queryItem) == "a%26b%3Dc%2Bd?")
        #expect(PercentEncoding.encode("a&b=c+d?", keeping: .query) == "a&b=c+d?")
        #expect(PercentEncoding.encode("x?y", keeping: .path) == "x%3Fy")
        #expect(PercentEncoding.encode("50%25 off", keeping: .queryItem) == "50%25%20off")
        #expect(PercentEncoding.encode("100%", keeping: .queryItem) == "100%25")
        #expect(PercentEncoding.encode("%zz", keeping: .queryItem) == "%25zz")
        #expect(PercentEncoding.encode("-._~AZaz09", keeping: .queryItem) == "-._~AZaz09")
        #expect(PercentEncoding.encode("😀", keeping: .path) == "%F0%9F%98%80")
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

@Suite("ParameterEncoder")
struct ParameterEncoderTests {
    let parameters: [(String, ParameterValue)] = [
        ("q", "café"), ("page", 2), ("ratio", 0.25), ("whole", 3.0), ("draft", true), ("tags", ["a", "b c"]),
        ("filter", ["kind": "book", "year": 2024]),
    ]

    @Test func typedValuesAndTheThreeArrayStyles() {
        #expect(
            ParameterEncoder().query(parameters)
                == "q=caf%C3%A9&page=2&ratio=0.25&whole=3&draft=true&tags=a&tags=b%20c&filter%5Bkind%5D=book&filter%5Byear%5D=2024")
        #expect(ParameterEncoder(arrayStyle: .brackets).query([("tags", ["a", "b"])]) == "tags%5B%5D=a&tags%5B%5D=b")
        #expect(ParameterEncoder(arrayStyle: .commaSeparated).query([("tags", ["a", "b", 3])]) == "tags=a,b,3")
        #expect(ParameterEncoder().pairs([("a", ["b": ["c": [1, 2]]])]).map { "\($0.name)=\($0.value)" } == ["a[b][c]=1", "a[b][c]=2"])
    }

    @Test func sortedKeysGiveTheSameQueryWhateverTheOrder() {
        let sorted = ParameterEncoder(sortsKeys: true)
        #expect(sorted.query([("b", 1), ("a", ["z": 1, "y": 2])]) == sorted.query([("a", ["y": 2, "z": 1]), ("b", 1)]))
        #expect(sorted.query([("b", 1), ("a", 2)]) == "a=2&b=1")
    }
}

@Suite("URLEncodingMiddleware")
struct URLEncodingMiddlewareTests {
    @Test(arguments: [
        ("https://api.example.com/v1", "users"), ("https://api.example.com/v1/", "users"),
        ("https://api.example.com/v1", "/users"), ("https://api.example.com/v1/", "/users"),
    ])
    func aRelativePathJoinsTheBaseWithOneSlash(base: String, path: String) async throws {
        let middleware = URLEncodingMiddleware(configuration: .init(baseURL: URL(string: base)))
        let harness = MiddlewareHarness(middleware, replies: [.status(.ok)])
        _ = try await harness.send(HTTPRequest(url: URL(string: path)!))
        #expect(harness.forwarded[0].url.absoluteString == "https://api.example.com/v1/users")
    }

    @Test func absoluteURLsPassThroughAndParametersAreAdded() async throws {
        let middleware = URLEncodingMiddleware(configuration: .init(baseURL: URL(string: "https://api.example.com"), encoder: .init(sortsKeys: true)))
        let harness = MiddlewareHarness(middleware, replies: [.status(.ok), .status(.ok)])
        var request = HTTPRequest(url: URL(string: "https://other.example/x?keep=1#frag")!)
        request.queryParameters = ["z": "ü", "a": 1]
        _ = try await harness.send(request)
        #expect(harness.forwarded[0].url.absoluteString == "https://other.example/x?keep=1&a=1&z=%C3%BC#frag")
        var form = HTTPRequest(method: .post, url: URL(string: "submit")!)
        form.formParameters = ["name": "Zoë & co", "n": 1]
        _ = try await harness.send(form)
        #expect(harness.forwarded[1].url.absoluteString == "https://api.example.com/submit")
        #expect(harness.forwarded[1].headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(String(decoding: harness.forwardedBodies[1], as: UTF8.self) == "n=1&name=Zo%C3%AB%20%26%20co")
    }

    @Test func aJSONBodyOrAClearErrorWhenTheValueCannotBeEncoded() throws {
        struct Item: Encodable { let id: Int; let ratio: Double }
        var request = HTTPRequest(method: .post, url: URL(string: "https://a.example/items")!)
        try request.setJSONBody(Item(id: 7, ratio: 0.5))
        #expect(request.headers["Content-Type"] == "application/json")
        guard case .bytes(let body) = request.body else { Issue.record("not a bytes body"); return }
        #expect(String(decoding: body, as: UTF8.self).contains("\"id\":7"))
        #expect {
            try request.setJSONBody(Item(id: 1, ratio: .nan))
        } throws: { error in
            (error as? SluiceError)?.code == .invalidBody && (error as? SluiceError)?.message.hasPrefix("Item could not be encoded as JSON: ") == true
        }
    }

    @Test func httpbinEchoesEncodedQueryAndFormParametersExactly() async throws {
        let pipeline = Pipeline(
            middlewares: [URLEncodingMiddleware(configuration: .init(encoder: .init(arrayStyle: .brackets)))],
            transport: CurlTransport())
        var request = HTTPRequest(method: .post, url: try InteropServers.httpbin("/anything"))
        request.queryParameters = ["q": "naïve & more", "tags": ["x", "y z"], "n": 5]
        request.formParameters = ["city": "Zürich", "note": "a+b=c"]
        let response = try await pipeline.send(request)
        let json = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        let args = try #require(json["args"] as? [String: Any])
        #expect(args["q"] as? String == "naïve & more")
        #expect(args["n"] as? String == "5")
        #expect(args["tags[]"] as? [String] == ["x", "y z"])
        #expect(json["form"] as? [String: String] == ["city": "Zürich", "note": "a+b=c"])
    }
}
