import Foundation
import Sluice
import SluiceCache
import SluiceCurl
import SluiceTestSupport
import SluiceTesting
import Testing

/// One request of a scenario, and what must happen.
struct Step: Sendable {
    var advance: TimeInterval = 0
    var method: HTTPMethod = .get
    var headers: [(String, String)] = []
    var policy: CachePolicy = .useProtocol
    var ttl: Int?
    /// What the server answers when asked; nil: the server must not be asked.
    var reply: MockWebServer.Response?
    /// A second answer, when the cache must ask twice.
    var then: MockWebServer.Response?
    var source: ResponseSource
    var status = 200
    var body: String?
    /// Header fields the request the server received must carry (conditional requests).
    var sent: [(String, String)] = []
}

/// A scenario: steps in order against one cache, one MockWebServer and a clock moved by hand.
struct Scenario: Sendable, CustomTestStringConvertible {
    let name: String
    var shared = false
    let steps: [Step]
    var testDescription: String { name }
}

func reply(_ status: Int = 200, _ headers: [(String, String)], _ body: String = "") -> MockWebServer.Response {
    MockWebServer.Response(status: status, headers: headers, body: Data(body.utf8))
}

let date0 = Date(timeIntervalSince1970: 1_000_000)

/// Every directive and policy of RFC 9111 and `CachePolicy`, over real HTTP through CurlTransport.
let scenarios: [Scenario] = [
    Scenario(
        name: "max-age: fresh copies are served, then the server is asked again",
        steps: [
            Step(reply: reply(200, [("Cache-Control", "max-age=60")], "a"), source: .network, body: "a"),
            Step(advance: 59, source: .cache, body: "a"),
            Step(advance: 2, reply: reply(200, [("Cache-Control", "max-age=60")], "b"), source: .network, body: "b"),
        ]),
    Scenario(
        name: "s-maxage governs a shared cache", shared: true,
        steps: [
            Step(reply: reply(200, [("Cache-Control", "max-age=1, s-maxage=100")], "a"), source: .network),
            Step(advance: 50, source: .cache, body: "a"),
        ]),
    Scenario(
        name: "Expires minus Date is the lifetime",
        steps: [
            Step(reply: reply(200, [("Date", HTTPDate.format(date0)), ("Expires", HTTPDate.format(date0 + 30))], "a"), source: .network),
            Step(advance: 29, source: .cache),
            Step(advance: 2, reply: reply(200, [], "b"), source: .network, body: "b"),
        ]),
    Scenario(
        name: "heuristic: 10% of the time since Last-Modified",
        steps: [
            Step(reply: reply(200, [("Date", HTTPDate.format(date0)), ("Last-Modified", HTTPDate.format(date0 - 1_000))], "a"), source: .network),
            Step(advance: 99, source: .cache),
            Step(advance: 2, reply: reply(304, []), source: .revalidated, body: "a", sent: [("If-Modified-Since", HTTPDate.format(date0 - 1_000))]),
        ]),
    Scenario(
        name: "the Age a server sends counts",
        steps: [
            Step(reply: reply(200, [("Cache-Control", "max-age=60"), ("Age", "50")], "a"), source: .network),
            Step(advance: 11, reply: reply(200, [("Cache-Control", "max-age=60")], "b"), source: .network, body: "b"),
        ]),
    Scenario(
        name: "ETag: a 304 revalidates and updates the stored fields",
        steps: [
            Step(reply: reply(200, [("Cache-Control", "max-age=10"), ("ETag", "\"v1\"")], "a"), source: .network),
            Step(
                advance: 11, reply: reply(304, [("Cache-Control", "max-age=100"), ("ETag", "\"v1\"")]), source: .revalidated, body: "a",
                sent: [("If-None-Match", "\"v1\"")]),
            Step(advance: 50, source: .cache, body: "a"),
        ]),
    Scenario(
        name: "a 304 for another ETag: the copy is dropped and the request sent again unconditionally",
        steps: [
            Step(reply: reply(200, [("Cache-Control", "max-age=10"), ("ETag", "\"v1\"")], "a"), source: .network),
            Step(
                advance: 11, reply: reply(304, [("ETag", "\"v2\"")]), then: reply(200, [("Cache-Control", "max-age=10"), ("ETag", "\"v2\"")], "b"),
                source: .network, body: "b"),
            Step(source: .cache, body: "b"),
        ]),
    Scenario(
        name: "Vary: the same selecting fields match, others do not",
        steps: [
            Step(
                headers: [("Accept-Language", "en")], reply: reply(200, [("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")], "en"), source: .network),
            Step(headers: [("Accept-Language", "en")], source: .cache, body: "en"),
            Step(
                headers: [("Accept-Language", "fr")], reply: reply(200, [("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")], "fr"), source: .network,
                body: "fr"),
        ]),
    Scenario(
        name: "Vary: * is never served from the cache",
        steps: [
            Step(reply: reply(200, [("Cache-Control", "max-age=60"), ("Vary", "*")], "a"), source: .network),
            Step(reply: reply(200, [("Cache-Control", "max-age=60"), ("Vary", "*")], "b"), source: .network, body: "b"),
        ]),
    Scenario(
        name: "response no-cache: validated on every use",
        steps: [
            Step(reply: reply(200, [("Cache-Control", "no-cache"), ("ETag", "\"x\"")], "a"), source: .network),
            Step(reply: reply(304, []), source: .revalidated, body: "a", sent: [("If-None-Match", "\"x\"")]),
        ]),
    Scenario(
        name: "must-revalidate beats a request's max-stale",
        steps: [
            Step(reply: reply(200, [("Cache-Control", "max-age=1, must-revalidate"), ("ETag", "\"x\"")], "a"), source: .network),
            Step(advance: 5, headers: [("Cache-Control", "max-stale=100")], reply: reply(304, []), source: .revalidated, sent: [("If-None-Match", "\"x\"")]),
        ]),
    Scenario(
        name: "proxy-revalidate binds a shared cache", shared: true,
        steps: [
            Step(reply: reply(200, [("Cache-Control", "max-age=1, proxy-revalidate"), ("ETag", "\"x\"")], "a"), source: .network),
            Step(advance: 5, headers: [("Cache-Control", "max-stale=100")], reply: reply(304, []), source: .revalidated),
        ]),
    Scenario(
        name: "proxy-revalidate does not bind a private cache",
        steps: [
            Step(reply: reply(200, [("Cache-Control", "max-age=1, proxy-revalidate"), ("ETag", "\"x\"")], "a"), source: .network),
            Step(advance: 5, headers: [("Cache-Control", "max-stale=100")], source: .cache),
        ]),
    Scenario(
        name: "immutable: a reload does not revalidate a fresh copy",
        steps: [
            Step(reply: reply(200, [("Cache-Control", "max-age=60, immutable"), ("ETag", "\"x\"")], "a"), source: .network),
            Step(headers: [("Cache-Control", "no-cache")], source: .cache),
        ]),
    Scenario(
        name: "stale-if-error: a 5xx inside the window is covered",
        steps: [
            Step(reply: reply(200, [("Cache-Control", "max-age=1, stale-if-error=100")], "a"), source: .network),
            Step(advance: 50, reply: reply(503, [], "down"), source: .cache, body: "a"),
            Step(advance: 100, reply: reply(503, [], "down"), source: .network, status: 503, body: "down"),
        ]),
    Scenario(
        name: "request max-age",
        steps: [
            Step(reply: reply(200, [("Cache-Control", "max-age=60"), ("ETag", "\"x\"")], "a"), source: .network),
            Step(advance: 20, headers: [("Cache-Control", "max-age=30")], source: .cache),
            Step(headers: [("Cache-Control", "max-age=10")], reply: reply(304, []), source: .revalidated),
        ]),
    Scenario(
        name: "request min-fresh",
        steps: [
            Step(reply: reply(200, [("Cache-Control", "max-age=60"), ("ETag", "\"x\"")], "a"), source: .network),
            Step(advance: 30, headers: [("Cache-Control", "min-fresh=20")], source: .cache),
            Step(headers: [("Cache-Control", "min-fresh=40")], reply: reply(304, []), source: .revalidated),
        ]),
    Scenario(
        name: "request max-stale",
        steps: [
            Step(reply: reply(200, [("Cache-Control", "max-age=10")], "a"), source: .network),
            Step(advance: 30, headers: [("Cache-Control", "max-stale=30")], source: .cache),
            Step(headers: [("Cache-Control", "max-stale=10")], reply: reply(200, [], "b"), source: .network, body: "b"),
        ]),
    Scenario(
        name: "request no-cache and Pragma: no-cache validate",
        steps: [
            Step(reply: reply(200, [("Cache-Control", "max-age=60"), ("ETag", "\"x\"")], "a"), source: .network),
            Step(headers: [("Cache-Control", "no-cache")], reply: reply(304, []), source: .revalidated),
            Step(headers: [("Pragma", "no-cache")], reply: reply(304, []), source: .revalidated),
        ]),
    Scenario(
        name: "request no-store: neither served nor stored",
        steps: [
            Step(headers: [("Cache-Control", "no-store")], reply: reply(200, [("Cache-Control", "max-age=60")], "a"), source: .network),
            Step(reply: reply(200, [("Cache-Control", "max-age=60")], "b"), source: .network, body: "b"),
        ]),
    Scenario(
        name: "response no-store is not stored",
        steps: [
            Step(reply: reply(200, [("Cache-Control", "no-store")], "a"), source: .network),
            Step(reply: reply(200, [], "b"), source: .network, body: "b"),
        ]),
    Scenario(
        name: "only-if-cached: 504 without an entry, the copy with one",
        steps: [
            Step(headers: [("Cache-Control", "only-if-cached")], source: .cache, status: 504),
            Step(reply: reply(200, [("Cache-Control", "max-age=60")], "a"), source: .network),
            Step(headers: [("Cache-Control", "only-if-cached")], source: .cache, body: "a"),
        ]),
    Scenario(
        name: "a successful unsafe request invalidates",
        steps: [
            Step(reply: reply(200, [("Cache-Control", "max-age=60")], "a"), source: .network),
            Step(method: .put, reply: reply(204, []), source: .network, status: 204),
            Step(reply: reply(200, [("Cache-Control", "max-age=60")], "b"), source: .network, body: "b"),
        ]),
    Scenario(
        name: "HEAD is answered from a stored GET",
        steps: [
            Step(reply: reply(200, [("Cache-Control", "max-age=60")], "a"), source: .network),
            Step(method: .head, source: .cache, body: ""),
        ]),
    Scenario(
        name: "private responses stay out of a shared cache", shared: true,
        steps: [
            Step(reply: reply(200, [("Cache-Control", "private, max-age=60")], "a"), source: .network),
            Step(reply: reply(200, [("Cache-Control", "private, max-age=60")], "b"), source: .network, body: "b"),
        ]),
    Scenario(
        name: "private responses are kept by a private cache",
        steps: [
            Step(reply: reply(200, [("Cache-Control", "private, max-age=60")], "a"), source: .network),
            Step(source: .cache, body: "a"),
        ]),
    Scenario(
        name: "Authorization: a shared cache stores only what allows it", shared: true,
        steps: [
            Step(headers: [("Authorization", "Bearer t")], reply: reply(200, [("Cache-Control", "max-age=60")], "a"), source: .network),
            Step(headers: [("Authorization", "Bearer t")], reply: reply(200, [("Cache-Control", "public, max-age=60")], "b"), source: .network),
            Step(headers: [("Authorization", "Bearer t")], source: .cache, body: "b"),
        ]),
    Scenario(
        name: "policy reloadIgnoringCache",
        steps: [
            Step(reply: reply(200, [("Cache-Control", "max-age=60")], "a"), source: .network),
            Step(policy: .reloadIgnoringCache, reply: reply(200, [("Cache-Control", "max-age=60")], "b"), source: .network, body: "b"),
            Step(source: .cache, body: "b"),
        ]),
    Scenario(
        name: "policy returnCacheElseLoad",
        steps: [
            Step(policy: .returnCacheElseLoad, reply: reply(200, [("Cache-Control", "max-age=1")], "a"), source: .network),
            Step(advance: 1_000, policy: .returnCacheElseLoad, source: .cache, body: "a"),
        ]),
    Scenario(
        name: "policy returnCacheDontLoad serves any stored copy",
        steps: [
            Step(reply: reply(200, [("Cache-Control", "max-age=1")], "a"), source: .network),
            Step(advance: 1_000, policy: .returnCacheDontLoad, source: .cache, body: "a"),
        ]),
    Scenario(
        name: "policy offlineFallback: a dropped connection gets the stale copy",
        steps: [
            // The first connection closes, so curl does not retry the dropped one on a fresh connection.
            Step(
                reply: MockWebServer.Response(
                    status: 200, headers: [("Cache-Control", "max-age=1"), ("ETag", "\"x\"")], body: Data("a".utf8), closesConnection: true),
                source: .network),
            Step(advance: 100, policy: .offlineFallback, reply: reply(200, []).with(fault: .disconnectBeforeResponse), source: .cache, body: "a"),
        ]),
    Scenario(
        name: "cacheTTL overrides the headers",
        steps: [
            Step(ttl: 300, reply: reply(200, [("Cache-Control", "no-cache")], "a"), source: .network),
            Step(advance: 299, ttl: 300, source: .cache, body: "a"),
        ]),
]

@Suite("CacheMiddleware scenarios against MockWebServer")
struct CacheScenarioTests {
    @Test(arguments: scenarios)
    func scenario(_ scenario: Scenario) async throws {
        let server = try MockWebServer()
        let clock = TestClock()
        let cache = CacheMiddleware(
            store: MemoryCacheStore(), configuration: .init(isShared: scenario.shared, clock: { [clock] in clock.read() })
        )
        let pipeline = Pipeline(middlewares: [cache], transport: CurlTransport())
        for (index, step) in scenario.steps.enumerated() {
            clock.advance(step.advance)
            let asked = server.requests.count
            if let reply = step.reply { server.enqueue(reply) }
            if let then = step.then { server.enqueue(then) }
            var request = HTTPRequest(method: step.method, url: server.url("/resource"))
            for (name, value) in step.headers { try request.headers.append(name: name, value: value) }
            request.cachePolicy = step.policy
            request.cacheTTL = step.ttl
            let response = try await pipeline.send(request)
            let where_ = "step \(index + 1)"
            #expect(response.source == step.source, "\(where_)")
            #expect(response.status.code == step.status, "\(where_)")
            if let body = step.body { #expect(response.text == body, "\(where_)") }
            let expectedAsks = (step.reply == nil ? 0 : 1) + (step.then == nil ? 0 : 1)
            #expect(server.requests.count - asked == expectedAsks, "\(where_): the server was asked \(server.requests.count - asked) times")
            if step.then != nil, let last = server.requests.last {
                #expect(last.header("If-None-Match") == nil, "\(where_): the second request is unconditional")
            }
            if let received = server.requests.last, expectedAsks == 1 {
                for (name, value) in step.sent { #expect(received.header(name) == value, "\(where_): \(name)") }
                if step.sent.isEmpty, step.source == .network {
                    #expect(received.header("If-None-Match") == nil && received.header("If-Modified-Since") == nil, "\(where_)")
                }
            }
            if step.source == .cache, step.status == 200 { #expect(response.headers["Age"] != nil, "\(where_)") }
        }
    }

    @Test func staleWhileRevalidateAnswersAtOnceAndRevalidatesInTheBackground() async throws {
        let server = try MockWebServer()
        let clock = TestClock()
        let cache = CacheMiddleware(store: MemoryCacheStore(), configuration: .init(clock: { [clock] in clock.read() }))
        let pipeline = Pipeline(middlewares: [cache], transport: CurlTransport())
        server.enqueue(reply(200, [("Cache-Control", "max-age=1, stale-while-revalidate=100"), ("ETag", "\"x\"")], "a"))
        server.enqueue(reply(304, [("Cache-Control", "max-age=60")]).with(headersDelay: .milliseconds(200)))
        _ = try await pipeline.send(HTTPRequest(url: server.url("/swr")))
        clock.advance(10)
        let stale = try await pipeline.send(HTTPRequest(url: server.url("/swr")))
        #expect(stale.source == .cache && stale.text == "a" && stale.headers["Age"] == "10")
        try await Wait.until("the background revalidation reached the server") { server.requests.count >= 2 }
        #expect(server.requests.count == 2)
        #expect(server.requests.last?.header("If-None-Match") == "\"x\"")
        // Once the 304 is in, the copy is fresh again: max-age=60 from the 304.
        var fresh: HTTPResponse?
        for _ in 0..<100 {
            fresh = try await pipeline.send(HTTPRequest(url: server.url("/swr")))
            if fresh?.headers["Age"] == "0" { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(fresh?.source == .cache && fresh?.headers["Age"] == "0")
        #expect(server.requests.count == 2)
    }

    @Test func policyReturnCacheDontLoadWithNothingStoredIsACacheMiss() async throws {
        let server = try MockWebServer()
        let pipeline = Pipeline(middlewares: [CacheMiddleware(store: MemoryCacheStore())], transport: CurlTransport())
        var request = HTTPRequest(url: server.url("/nothing"))
        request.cachePolicy = .returnCacheDontLoad
        await #expect {
            _ = try await pipeline.send(request)
        } throws: { ($0 as? SluiceError)?.code == .cacheMiss }
        #expect(server.requests.isEmpty)
    }
}
