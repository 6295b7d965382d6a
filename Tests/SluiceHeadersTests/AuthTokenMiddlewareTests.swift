import Foundation
import Sluice
import SluiceCurl
import SluiceHeaders
import SluiceTestSupport
import SluiceTesting
import Testing

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

    @Test(arguments: [false, true])
    func theTokenNeverFollowsARedirectToAnotherOrigin(followerOutside: Bool) async throws {
        let origin = try MockWebServer()
        let landing = try MockWebServer()
        origin.setHandler { _ in .init(status: 302, headers: [("Location", "http://localhost:\(landing.port)/landing")], body: "") }
        landing.setHandler { _ in .init(status: 200, body: "landed") }
        let auth = AuthTokenMiddleware(configuration: .init(token: { "t0ken" }, refresh: { "fresh" }, headerName: "X-Token", scheme: ""))
        // The builder puts auth outside the follower (the follower drops the field it listed);
        // a plain list puts the follower outside auth (auth adds nothing for the other host).
        let client: Client
        if followerOutside {
            client = Client(transport: CurlTransport(), middlewares: [auth])
        } else {
            var builder = Client.Builder(transport: CurlTransport())
            builder.add(auth)
            client = builder.build()
        }
        #expect(try await client.send(HTTPRequest(url: origin.url("/start"))).text == "landed")
        #expect(origin.requests.first?.header("X-Token") == "t0ken")
        #expect(landing.requests.count == 1)
        #expect(landing.requests.first?.header("X-Token") == nil)
    }
}
