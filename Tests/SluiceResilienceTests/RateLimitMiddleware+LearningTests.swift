import Foundation
import Sluice
import SluiceTestSupport
import SluiceTesting
import Testing

@testable import SluiceResilience

/// Issue 53, items 2, 3 and 12 (THREATS §13, what a peer teaches is bounded and expires): a
/// learned quota never spaces calls more than `maxPause` apart and expires; only the origin a key
/// belongs to teaches it; a store's word never makes a call sleep or ask without bound.
@Suite("What a server teaches a rate limit is bounded")
struct RateLimitLearningTests {
    static let url = URL(string: "https://api.example.com/quota")!
    static let origin = "https://api.example.com:443"

    static func answer(_ fields: [(String, String)], status: HTTPStatus = .ok) throws -> MockTransport.Reply {
        .response(HTTPResponse(status: status, headers: try HTTPFields(validating: fields)))
    }

    /// The review's case: `q=1;w=1e12` was one call per 31,700 years. It is kept as one call per
    /// `maxPause`, and forgotten `learnedLimitLifetime` after the server last stated it.
    @Test func aCenturyQuotaIsOneCallPerMaxPauseAndExpires() async throws {
        let clock = SteppedClock()
        let configured = RateLimit(requests: 10, per: .seconds(1))
        let limiter = RateLimitMiddleware(
            configuration: .init(limit: configured, whenLimited: .failFast, maxPause: .seconds(2), learnedLimitLifetime: .seconds(60)),
            store: MemoryRateLimitStore(maxKeys: 10, now: { clock.now }), now: { clock.now })
        let states = Locked(true)
        let transport = MockTransport { _, _ in
            states.withLock { $0 } ? try Self.answer([("RateLimit-Policy", #""day";q=1;w=1000000000000"#)]) : .status(.ok)
        }
        let harness = MiddlewareHarness(limiter, transport: transport)
        _ = try await harness.send(HTTPRequest(url: Self.url))
        #expect(limiter.limit(for: Self.origin) == RateLimit(requests: 1, per: .seconds(2), burst: 1))
        clock.advance(.milliseconds(100))
        _ = try await harness.send(HTTPRequest(url: Self.url))
        await RateLimitMiddlewareTests.expectError(
            .rateLimited,
            "https://api.example.com:443 is over its rate limit of 1 per 2.0 s, burst 1: GET https://api.example.com/quota may go again in 2.000 s; it was not sent"
        ) { _ = try await harness.send(HTTPRequest(url: Self.url)) }
        clock.advance(.seconds(2))
        #expect(try await harness.send(HTTPRequest(url: Self.url)).status == .ok, "the lock-out ends within maxPause")
        // Not stated again for the lifetime: the configured limit holds again.
        states.withLock { $0 = false }
        clock.advance(.seconds(59))
        #expect(limiter.limit(for: Self.origin) == RateLimit(requests: 1, per: .seconds(2), burst: 1))
        clock.advance(.seconds(2))
        #expect(limiter.limit(for: Self.origin) == configured)
        for _ in 0..<10 { #expect(try await harness.send(HTTPRequest(url: Self.url)).status == .ok) }
    }

    /// A named quota learns from the origin the call was made to, never from one a redirect led it
    /// to; `teachingOrigins` names the origins that may teach instead.
    @Test func onlyTheOriginAKeyBelongsToTeachesIt() async throws {
        let policy = ("RateLimit-Policy", #""q";q=1;w=60"#)
        let elsewhere = URL(string: "https://cdn.example.net/file")!
        func redirected(_ limiter: RateLimitMiddleware) async throws {
            let transport = MockTransport { request, _ in
                request.url.host == "api.example.com"
                    ? try Self.answer([("Location", elsewhere.absoluteString)], status: .found)
                    : try Self.answer([policy, ("Retry-After", "30")], status: .tooManyRequests)
            }
            let client = Client(transport: transport, middlewares: [RedirectMiddleware(), limiter])
            _ = try await client.send(HTTPRequest(url: Self.url))
            #expect(transport.requests.map(\.request.url.host) == ["api.example.com", "cdn.example.net"])
        }
        let named = RateLimitMiddleware(configuration: .init(limit: RateLimit(requests: 10, per: .seconds(1)), key: .named("api"), whenLimited: .failFast))
        try await redirected(named)
        #expect(named.limit(for: "api") == RateLimit(requests: 10, per: .seconds(1)), "the redirect target taught nothing")
        #expect(try await named.store.acquire("api", under: named.limit(for: "api")) == .allowed, "nor paused the key")

        // Named as a teacher, the other origin teaches.
        let taught = RateLimitMiddleware(
            configuration: .init(
                limit: RateLimit(requests: 10, per: .seconds(1)), key: .named("api"), whenLimited: .failFast,
                teachingOrigins: ["https://cdn.example.net:443"]))
        try await redirected(taught)
        #expect(taught.limit(for: "api") == RateLimit(requests: 1, per: .seconds(60), burst: 1))

        // Without a redirect, the origin called teaches a named key as before.
        let direct = RateLimitMiddleware(configuration: .init(limit: RateLimit(requests: 10, per: .seconds(1)), key: .named("api")))
        _ = try await MiddlewareHarness(direct, replies: [try Self.answer([policy])]).send(HTTPRequest(url: Self.url))
        #expect(direct.limit(for: "api") == RateLimit(requests: 1, per: .seconds(60), burst: 1))
    }

    /// A store that reserves a place for a call that asked to wait for none is not slept out.
    @Test func aFailFastCallNeverSleepsOutAReservationItDidNotAskFor() async throws {
        struct Lying: RateLimitStore {
            func acquire(_ key: String, under limit: RateLimit, waitingAtMost maxWait: Duration) async throws -> RateLimitDecision {
                .reserved(after: .seconds(3_155_760_000))
            }
            func pause(_ key: String, for duration: Duration, under limit: RateLimit) async throws {}
        }
        let limiter = RateLimitMiddleware(
            configuration: .init(limit: RateLimit(requests: 1, per: .seconds(1)), whenLimited: .failFast), store: Lying())
        let transport = MockTransport(replies: [.status(.ok)])
        await RateLimitMiddlewareTests.expectError(
            .rateLimited,
            "https://api.example.com:443 is over its rate limit of 1 per 1.0 s, burst 1: GET https://api.example.com/quota was given a place in 3155760000.000 s by the store, and it waits for none (whenLimited: .failFast); it was not sent"
        ) { _ = try await MiddlewareHarness(limiter, transport: transport).send(HTTPRequest(url: Self.url)) }
        #expect(transport.requests.isEmpty)
    }

    /// A store that always says "in 1 µs" is asked again with a back-off and at most 64 times, not
    /// 800 times a second for ever, when the call has no deadline.
    @Test func aStoreThatAlwaysSaysSoonIsAskedABoundedNumberOfTimes() async throws {
        final class Soon: RateLimitStore {
            let asked = Locked(0)
            func acquire(_ key: String, under limit: RateLimit, waitingAtMost maxWait: Duration) async throws -> RateLimitDecision {
                asked.withLock { $0 += 1 }
                return .limited(retryAfter: .microseconds(1))
            }
            func pause(_ key: String, for duration: Duration, under limit: RateLimit) async throws {}
        }
        let store = Soon()
        let limiter = RateLimitMiddleware(configuration: .init(limit: RateLimit(requests: 1, per: .seconds(1))), store: store)
        let harness = MiddlewareHarness(limiter, replies: [.status(.ok)])
        let task = Task { try await harness.send(HTTPRequest(url: Self.url)) }
        try await Task.sleep(for: .milliseconds(500))
        // 1 + 2 + 4 + … ms: about 9 asks in the first half second, where a 1 ms loop made 500.
        let early = store.asked.withLock { $0 }
        #expect(early >= 2 && early <= 12, "\(early) asks in 500 ms")
        task.cancel()
        _ = await task.result
        #expect(RateLimitMiddleware.maxReasks == 64)
    }

    /// Issue 53, item 12: a call cancelled while it slept until its reserved place kept the place,
    /// so the next caller waited one interval more for nothing. The place is given back.
    @Test func aCancelledCallGivesItsReservedPlaceBack() async throws {
        let store = MemoryRateLimitStore()
        let limit = RateLimit(requests: 1, per: .seconds(10), burst: 1)
        let limiter = RateLimitMiddleware(configuration: .init(limit: limit, whenLimited: .wait(maxWaiting: 10)), store: store)
        let harness = MiddlewareHarness(limiter, transport: MockTransport { _, _ in .status(.ok) })
        _ = try await harness.send(HTTPRequest(url: Self.url))
        let waiting = Task { try await harness.send(HTTPRequest(url: Self.url)) }
        try await Wait.until("the second call sleeps until its place") { limiter.heldCalls()[Self.origin] == 1 }
        waiting.cancel()
        _ = await waiting.result
        // Given back: the next place is the one the cancelled call had, about 10 s away, not 20.
        try await Wait.until("the place is given back") {
            if case .limited(let after) = store.decide(Self.origin, under: limit) { return after <= .seconds(10) }
            return false
        }
        for key in ["a", "b"] { _ = try await store.acquire(key, under: limit) }
        try await store.release("a", under: limit)
        #expect(try await store.acquire("a", under: limit) == .allowed, "released: the place is free again")
        try await store.release("never-used", under: limit)
        #expect(try await store.acquire("never-used", under: limit) == .allowed, "nothing to give back: nothing changes")
    }
}
