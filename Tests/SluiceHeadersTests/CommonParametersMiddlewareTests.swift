import Foundation
import Sluice
import SluiceCurl
import SluiceHeaders
import SluiceTestSupport
import SluiceTesting
import Testing

@Suite("CommonParametersMiddleware")
struct CommonParametersTests {
    let parameters: CommonParametersMiddleware.Provider = { [("app_version", "4.2"), ("channel", "store"), ("note", "a b&c=é")] }

    func harness(_ placement: CommonParametersMiddleware.Placement) -> MiddlewareHarness {
        MiddlewareHarness(
            CommonParametersMiddleware(configuration: .init(placement: placement, parameters: parameters)),
            replies: Array(repeating: .status(.ok), count: 4))
    }

    @Test func intoTheQueryPercentEncoded() async throws {
        let harness = harness(.query)
        _ = try await harness.send(HTTPRequest(url: URL(string: "https://a.example/x?page=2&channel=web#top")!))
        #expect(harness.forwarded[0].url.absoluteString == "https://a.example/x?page=2&channel=web&app_version=4.2&note=a%20b%26c%3D%C3%A9#top")
    }

    /// One query rule: the same pairs leave as the same URL through `get(query:)`, an
    /// `Endpoint`'s query and common parameters, a `%` in a value included (it is data).
    @Test func theSamePairsLeaveAsTheSameURLByEveryDoor() async throws {
        let pairs = [("code", "50%25"), ("tags", "a,b"), ("q", "café au lait"), ("eq", "x=y&z"), ("path", "/a?b")]
        let base = URL(string: "https://api.example.com/v1")!
        func sent(_ send: (Client) async throws -> Void, through middlewares: [any Middleware] = []) async throws -> String {
            let transport = MockTransport(replies: [.status(.ok)])
            var builder = Client.Builder(transport: transport, configuration: Client.Configuration(baseURL: base))
            for middleware in middlewares { builder.add(middleware) }
            try await send(builder.build())
            return try #require(transport.requests.first?.request.url.absoluteString)
        }
        struct Items: Endpoint {
            typealias Response = Data
            let pairs: [(String, String)]
            var path: String { "items" }
            var query: [URLQueryItem] { pairs.map { URLQueryItem(name: $0.0, value: $0.1) } }
        }
        let verb = try await sent { _ = try await $0.get("items", query: .dictionary(pairs.map { ($0.0, .string($0.1)) })) }
        let endpoint = try await sent { _ = try await $0.send(Items(pairs: pairs)) }
        let common = try await sent(
            { _ = try await $0.get("items") },
            through: [CommonParametersMiddleware(configuration: .init(placement: .query, parameters: { pairs.map { (name: $0.0, value: $0.1) } }))])
        #expect(verb == "https://api.example.com/v1/items?code=50%2525&tags=a,b&q=caf%C3%A9%20au%20lait&eq=x%3Dy%26z&path=/a?b")
        #expect(endpoint == verb)
        #expect(common == verb)
    }

    @Test func intoAFormBody() async throws {
        let harness = harness(.formBody)
        let form = HTTPRequest(
            method: .post, url: URL(string: "https://a.example/x")!,
            headers: ["Content-Type": "application/x-www-form-urlencoded"], body: .bytes(Data("q=1&channel=web".utf8)))
        _ = try await harness.send(form)
        #expect(String(decoding: harness.forwardedBodies[0], as: UTF8.self) == "q=1&channel=web&app_version=4.2&note=a%20b%26c%3D%C3%A9")
        _ = try await harness.send(HTTPRequest(method: .post, url: URL(string: "https://a.example/x")!))
        #expect(harness.forwarded[1].headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(String(decoding: harness.forwardedBodies[1], as: UTF8.self) == "app_version=4.2&channel=store&note=a%20b%26c%3D%C3%A9")
        _ = try await harness.send(HTTPRequest(url: URL(string: "https://a.example/x")!))
        #expect(harness.forwarded[2].url.query == "app_version=4.2&channel=store&note=a%20b%26c%3D%C3%A9")
    }

    @Test func intoAJSONBody() async throws {
        let harness = harness(.jsonBody)
        let json = HTTPRequest(
            method: .post, url: URL(string: "https://a.example/x")!,
            headers: ["Content-Type": "application/json"], body: .bytes(Data(#"{"channel":"web","n":1}"#.utf8)))
        _ = try await harness.send(json)
        #expect(String(decoding: harness.forwardedBodies[0], as: UTF8.self) == #"{"app_version":"4.2","channel":"web","n":1,"note":"a b&c=é"}"#)
    }

    @Test func seedEsStandardSet() async throws {
        let provider = CommonParametersMiddleware.standard(
            appVersion: "4.2.0", channel: "appstore", deviceID: "D-1", token: { "t0k" }, clock: { Date(timeIntervalSince1970: 1_700_000_000) }
        )
        let pairs = try await provider()
        #expect(pairs.map(\.name) == ["device", "os", "timestamp", "token", "device_id", "channel", "app_version"])
        #expect(pairs.first { $0.name == "timestamp" }?.value == "1700000000")
        #expect(pairs.first { $0.name == "token" }?.value == "t0k")
    }

    @Test func httpbinEchoesTheParametersExactly() async throws {
        let pipeline = Pipeline(
            middlewares: [CommonParametersMiddleware(configuration: .init(placement: .formBody, parameters: parameters))],
            transport: CurlTransport()
        )
        let response = try await pipeline.send(HTTPRequest(method: .post, url: try InteropServers.httpbin("/anything")))
        let json = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        let form = try #require(json["form"] as? [String: String])
        #expect(form == ["app_version": "4.2", "channel": "store", "note": "a b&c=é"])
        let queried = try await Pipeline(
            middlewares: [CommonParametersMiddleware(configuration: .init(placement: .query, parameters: parameters))],
            transport: CurlTransport()
        ).send(HTTPRequest(url: try InteropServers.httpbin("/anything?x=1")))
        let args = try #require((try JSONSerialization.jsonObject(with: queried.body) as? [String: Any])?["args"] as? [String: String])
        #expect(args == ["x": "1", "app_version": "4.2", "channel": "store", "note": "a b&c=é"])
    }

    /// Issue 53, item 1: a caller's `Content-Length` for the body it gave (a generated client sends
    /// one on every request) said 51 when the parameters made it 62, and the other 11 bytes sat on
    /// the keep-alive connection in front of the next request. The body goes out framed as sent.
    @Test func aBodyWithTheParametersAddedIsFramedAsSentWhateverTheCallerDeclared() async throws {
        let server = try MockWebServer()
        server.setHandler { _ in .init(status: 200, body: "ok") }
        let client = Client(
            transport: CurlTransport(),
            middlewares: [CommonParametersMiddleware(configuration: .init(placement: .jsonBody) { [("user", "bob")] })])
        let json = Data(#"{"item":"pen","count":2,"note":"for the frontdesk"}"#.utf8)
        #expect(json.count == 51)
        var request = HTTPRequest(method: .post, url: server.url("/orders"))
        request.body = .bytes(json)
        request.headers = ["Content-Type": "application/json", "Content-Length": "51"]
        _ = try await client.send(request)
        _ = try await client.send(HTTPRequest(url: server.url("/next")))
        #expect(server.requests.map { "\($0.method) \($0.target)" } == ["POST /orders", "GET /next?user=bob"])
        let received = try #require(server.requests.first)
        let object = try #require(try JSONSerialization.jsonObject(with: received.body) as? [String: Any])
        #expect(object["user"] as? String == "bob")
        #expect(received.body.count > 51)
        #expect(received.headers.filter { $0.name.lowercased() == "content-length" }.map(\.value) == [String(received.body.count)])
        #expect(Set(server.requests.map(\.connection)).count == 1)
    }
}
