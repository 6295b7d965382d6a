import Foundation
import Sluice
import SluiceCurl
import SluiceHeaders
import SluiceTestSupport
import SluiceTesting
import Testing

final class Counter: Sendable {
    private let value = Locked(0)
    func next() -> Int {
        value.withLock {
            $0 += 1; return $0
        }
    }
    var count: Int { value.withLock { $0 } }
}

@Suite("HeadersMiddleware")
struct HeadersMiddlewareTests {
    let url = URL(string: "https://api.example.com/x")!

    @Test func fixedAndProvidedFieldsAreAddedAndTheRequestsOwnWin() async throws {
        let calls = Counter()
        let middleware = HeadersMiddleware(
            configuration: .init(
                fields: ["Accept": "application/json", "X-App": "shop/4.2"],
                providers: [{ ["X-Call": String(calls.next()), "X-App": "from-provider"] }]
            ))
        let harness = MiddlewareHarness(middleware, replies: [.status(.ok), .status(.ok)])
        _ = try await harness.send(HTTPRequest(url: url, headers: ["Accept": "text/plain"]))
        _ = try await harness.send(HTTPRequest(url: url))
        let first = harness.forwarded[0].headers, second = harness.forwarded[1].headers
        #expect(first["Accept"] == "text/plain")
        #expect(first["X-App"] == "from-provider" && first["X-Call"] == "1")
        #expect(second["Accept"] == "application/json" && second["X-Call"] == "2")
    }

    @Test func overridingReplacesTheRequestsFields() async throws {
        let harness = MiddlewareHarness(HeadersMiddleware(configuration: .init(fields: ["Accept": "a/b"], overridesRequest: true)), replies: [.status(.ok)])
        _ = try await harness.send(HTTPRequest(url: url, headers: ["accept": "c/d"]))
        #expect(harness.forwarded[0].headers.values(for: "Accept") == ["a/b"])
    }

    @Test func aFailingProviderFailsTheRequestWithItsError() async throws {
        struct Locked: Error {}
        let harness = MiddlewareHarness(HeadersMiddleware(configuration: .init(providers: [{ throw Locked() }])), replies: [.status(.ok)])
        await #expect { _ = try await harness.send(HTTPRequest(url: url)) } throws: { ($0 as? SluiceError)?.underlying is Locked }
        #expect(harness.forwarded.isEmpty)
    }

    @Test func aProvidedFieldWithALineBreakIsAnInvalidHeader() async throws {
        let harness = MiddlewareHarness(
            HeadersMiddleware(
                configuration: .init(providers: [
                    {
                        var fields = HTTPFields()
                        try fields.append(name: "X-Bad", value: "a\r\nInjected: 1")
                        return fields
                    }
                ])), replies: [.status(.ok)])
        await #expect { _ = try await harness.send(HTTPRequest(url: url)) } throws: { ($0 as? SluiceError)?.code == .invalidHeader }
    }

    @Test func httpbinSeesTheInjectedFieldsAndTheDefaultUserAgent() async throws {
        let pipeline = Pipeline(
            middlewares: [HeadersMiddleware(configuration: .init(fields: ["X-Sluice-Test": "yes"], providers: [{ ["X-Provided": "42"] }]))],
            transport: CurlTransport()
        )
        let response = try await pipeline.send(HTTPRequest(url: try InteropServers.httpbin("/headers")))
        let json = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: [String: String]])
        let headers = try #require(json["headers"])
        #expect(headers["X-Sluice-Test"] == "yes" && headers["X-Provided"] == "42")
        #expect(headers["User-Agent"] == CurlTransport.defaultUserAgent)
        #expect(CurlTransport.defaultUserAgent == "Sluice/\(SluiceVersion.current) libcurl/\(CurlTransport.curlVersion)")
    }
}

@Suite("AuthTokenMiddleware")
struct AuthTokenMiddlewareTests {
    let url = URL(string: "https://api.example.com/me")!

    /// A server that accepts only `Bearer fresh-N` for the newest N.
    func transport(_ valid: @escaping @Sendable () -> String) -> MockTransport {
        MockTransport { request, _ in
            try await Task.sleep(for: .milliseconds(20))
            return request.headers["Authorization"] == "Bearer " + valid() ? .status(.ok, body: "me") : .status(401)
        }
    }

    @Test func aTokenIsSentAndA401RefreshesOnceAndRetries() async throws {
        let refreshes = Counter()
        let auth = AuthTokenMiddleware(configuration: .init(token: { "expired" }, refresh: { "fresh-\(refreshes.next())" }))
        let harness = MiddlewareHarness(auth, transport: transport { "fresh-1" })
        let response = try await harness.send(HTTPRequest(url: url))
        #expect(response.status.code == 200)
        #expect(harness.forwarded.map { $0.headers["Authorization"] } == ["Bearer expired", "Bearer fresh-1"])
        #expect(harness.transport.requests[1].context.attempt == harness.transport.requests[0].context.attempt + 1)
        // The refreshed token is used from then on.
        _ = try await harness.send(HTTPRequest(url: url))
        #expect(harness.forwarded.last?.headers["Authorization"] == "Bearer fresh-1")
        #expect(refreshes.count == 1)
    }

    @Test func fiftyConcurrent401sShareOneRefresh() async throws {
        let refreshes = Counter()
        let auth = AuthTokenMiddleware(
            configuration: .init(
                token: { "expired" },
                refresh: {
                    try await Task.sleep(for: .milliseconds(100))
                    return "fresh-\(refreshes.next())"
                }))
        let harness = MiddlewareHarness(auth, transport: transport { "fresh-1" })
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 { group.addTask { try await harness.send(HTTPRequest(url: url)).status.code } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 50))
        #expect(refreshes.count == 1)
        #expect(auth.refreshCount == 1)
    }

    @Test func aStill401AfterRefreshIsReturnedNotRetriedForever() async throws {
        let auth = AuthTokenMiddleware(configuration: .init(token: { "a" }, refresh: { "b" }))
        let harness = MiddlewareHarness(auth, transport: transport { "never" })
        #expect(try await harness.send(HTTPRequest(url: url)).status.code == 401)
        #expect(harness.forwarded.count == 2)
    }

    @Test func aFailingRefreshFailsTheRequest() async throws {
        let down = SluiceError(.cannotConnect, "the auth server is down")
        let auth = AuthTokenMiddleware(configuration: .init(token: { "a" }, refresh: { throw down }))
        let harness = MiddlewareHarness(auth, transport: transport { "b" })
        await #expect { _ = try await harness.send(HTTPRequest(url: url)) } throws: {
            ($0 as? SluiceError)?.code == .cannotConnect && ($0 as? SluiceError)?.message == "the auth server is down"
        }
    }

    @Test func aOneShotBodyIsNotSentTwice() async throws {
        let auth = AuthTokenMiddleware(configuration: .init(token: { "a" }, refresh: { "b" }))
        let harness = MiddlewareHarness(auth, transport: transport { "b" })
        let body = HTTPBody.stream(
            .oneShot(
                length: 3,
                AsyncThrowingStream {
                    $0.yield(Data("abc".utf8)); $0.finish()
                }))
        #expect(try await harness.send(HTTPRequest(method: .post, url: url, body: body)).status.code == 401)
        #expect(harness.forwarded.count == 1)
    }
}

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
}
