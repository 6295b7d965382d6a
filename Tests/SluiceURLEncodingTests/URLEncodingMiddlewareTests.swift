import Foundation
import Sluice
import SluiceCurl
import SluiceTestSupport
import SluiceTesting
import SluiceURLEncoding
import Testing

@Suite("URLEncodingMiddleware")
struct URLEncodingMiddlewareTests {
    @Test func absoluteURLsPassThroughAndParametersAreAdded() async throws {
        let middleware = URLEncodingMiddleware(configuration: .init(encoder: .init(sortsKeys: true)))
        let harness = MiddlewareHarness(middleware, replies: [.status(.ok), .status(.ok)])
        var request = HTTPRequest(url: URL(string: "https://other.example/x?keep=1#frag")!)
        request.queryParameters = ["z": "ü", "a": 1]
        _ = try await harness.send(request)
        #expect(harness.forwarded[0].url.absoluteString == "https://other.example/x?keep=1&a=1&z=%C3%BC#frag")
        var form = HTTPRequest(method: .post, url: URL(string: "https://api.example.com/submit")!)
        form.formParameters = ["name": "Zoë & co", "n": 1]
        _ = try await harness.send(form)
        #expect(harness.forwarded[1].url.absoluteString == "https://api.example.com/submit")
        #expect(harness.forwarded[1].headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(String(decoding: harness.forwardedBodies[1], as: UTF8.self) == "n=1&name=Zo%C3%AB%20%26%20co")
    }

    /// The client's base URL is the only one: a relative request URL is joined to it by the
    /// client, with one slash, its own query kept and the parameters after it.
    @Test(arguments: [
        ("https://api.example.com/v1", "search?x=1"), ("https://api.example.com/v1/", "search?x=1"),
        ("https://api.example.com/v1", "/search?x=1"), ("https://api.example.com/v1/", "/search?x=1"),
    ])
    func aRelativeURLIsJoinedToTheClientsBaseAndKeepsItsQuery(base: String, path: String) async throws {
        let transport = MockTransport(replies: [.status(.ok)])
        let client = Client(transport: transport, middlewares: [URLEncodingMiddleware()], configuration: .init(baseURL: URL(string: base)))
        var request = HTTPRequest(url: URL(string: path)!)
        request.queryParameters = ["q": "a b", "page": 2]
        _ = try await client.send(request)
        #expect(transport.requests.first?.request.url.absoluteString == "https://api.example.com/v1/search?x=1&q=a%20b&page=2")
    }

    /// No parameters add no `?`. A relative URL with no base URL to join never reaches the
    /// middleware: the core's own stages refuse it, by every door (issue 43), before anything
    /// is sent.
    @Test func noParametersLeaveTheURLAsItWasAndNoBaseRefusesARelativeOne() async throws {
        let harness = MiddlewareHarness(URLEncodingMiddleware(), replies: [.status(.ok), .status(.ok)])
        var absolute = HTTPRequest(url: URL(string: "https://api.example.com/items")!)
        absolute.queryParameters = [:]
        _ = try await harness.send(absolute)
        #expect(harness.forwarded[0].url.absoluteString == "https://api.example.com/items")  // no "?" added
        await #expect {
            _ = try await harness.send(HTTPRequest(url: URL(string: "items")!))
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .invalidURL && error?.message == #""items" is not an absolute URL and the client has no base URL"#
        }
        #expect(harness.forwarded.count == 1)
    }

    @Test func formParametersReplaceTheBodyAndItsContentType() async throws {
        let harness = MiddlewareHarness(URLEncodingMiddleware(configuration: .init(encoder: .init(arrayStyle: .brackets))), replies: [.status(.ok)])
        var request = HTTPRequest(method: .post, url: URL(string: "https://api.example.com/login")!)
        request.body = .bytes(Data("ignored".utf8))
        try request.headers.set(name: "Content-Type", value: "text/plain")
        request.formParameters = ["user": ["name": "Bob", "roles": ["a", "b"]], "remember": true]
        _ = try await harness.send(request)
        #expect(harness.forwarded[0].headers.values(for: "Content-Type") == ["application/x-www-form-urlencoded"])
        #expect(
            String(decoding: harness.forwardedBodies[0], as: UTF8.self)
                == "user%5Bname%5D=Bob&user%5Broles%5D%5B%5D=a&user%5Broles%5D%5B%5D=b&remember=true")
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
