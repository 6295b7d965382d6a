import Foundation
import Sluice
import SluiceTestSupport
import SluiceTesting
import Testing

@testable import SluiceResilience

/// A clock tests step by hand.
final class SteppedClock: Sendable {
    private let instant = Locked(ContinuousClock.now)
    var now: ContinuousClock.Instant { instant.withLock { $0 } }
    func advance(_ duration: Duration) { instant.withLock { $0 = $0.advanced(by: duration) } }
}

@Suite struct RateLimitStoreTests {
    /// GCRA: `burst` calls at once, then one every `period ÷ requests`; a pause lets none go until
    /// it ends, then one.
    @Test func theMemoryStoreKeepsTheRateAndItsBurst() async throws {
        let clock = SteppedClock()
        let store = MemoryRateLimitStore(maxKeys: 10, now: { clock.now })
        let limit = RateLimit(requests: 4, per: .seconds(2), burst: 2)
        #expect(try await store.acquire("k", under: limit) == .allowed)
        #expect(try await store.acquire("k", under: limit) == .allowed)
        #expect(try await store.acquire("k", under: limit) == .limited(retryAfter: .milliseconds(500)))
        #expect(try await store.acquire("other", under: limit) == .allowed, "each key has its own rate")
        clock.advance(.milliseconds(499))
        #expect(try await store.acquire("k", under: limit) == .limited(retryAfter: .milliseconds(1)))
        clock.advance(.milliseconds(1))
        #expect(try await store.acquire("k", under: limit) == .allowed)
        #expect(try await store.acquire("k", under: limit) == .limited(retryAfter: .milliseconds(500)))

        try await store.pause("k", for: .seconds(10), under: limit)
        #expect(try await store.acquire("k", under: limit) == .limited(retryAfter: .seconds(10)))
        clock.advance(.seconds(10))
        #expect(try await store.acquire("k", under: limit) == .allowed)
        #expect(try await store.acquire("k", under: limit) == .limited(retryAfter: .milliseconds(500)), "one call after a pause")
        clock.advance(.seconds(60))
        #expect(try await store.acquire("k", under: limit) == .allowed)
        #expect(try await store.acquire("k", under: limit) == .allowed, "a quiet spell gives the burst back")
    }

    /// A pause shorter than the rate's own wait changes nothing.
    @Test func aShortPauseDoesNotShortenTheWait() async throws {
        let clock = SteppedClock()
        let store = MemoryRateLimitStore(maxKeys: 10, now: { clock.now })
        let limit = RateLimit(requests: 1, per: .seconds(60))
        #expect(try await store.acquire("k", under: limit) == .allowed)
        try await store.pause("k", for: .seconds(1), under: limit)
        #expect(try await store.acquire("k", under: limit) == .limited(retryAfter: .seconds(60)))
    }

    /// Keys callers make up cannot grow memory past `maxKeys`; an idle key is forgotten first.
    @Test func theMemoryStoreKeepsAtMostItsKeys() async throws {
        let clock = SteppedClock()
        let store = MemoryRateLimitStore(maxKeys: 3, now: { clock.now })
        let limit = RateLimit(requests: 1, per: .seconds(60))
        for key in 0..<100 {
            _ = try await store.acquire("key-\(key)", under: limit)
            clock.advance(.milliseconds(1))
        }
        #expect(store.count == 3)
        #expect(try await store.acquire("key-99", under: limit) != .allowed, "the newest keys are kept")
    }

    /// Issue 53, item 8: past `maxKeys` the key that took a place longest ago goes, found at the
    /// end of a list (no scan of the table): here `b`, since `a` took a place again after it.
    @Test func pastItsKeysTheMemoryStoreForgetsTheKeyUsedLongestAgo() async throws {
        let clock = SteppedClock()
        let store = MemoryRateLimitStore(maxKeys: 3, now: { clock.now })
        let limit = RateLimit(requests: 1, per: .seconds(1), burst: 2)
        for key in ["a", "b", "c", "a", "d"] {
            #expect(try await store.acquire(key, under: limit) == .allowed)
        }
        #expect(store.count == 3)
        #expect(try await store.acquire("a", under: limit) != .allowed, "a's two places are spent: kept")
        #expect(try await store.acquire("b", under: limit) == .allowed, "b was forgotten: a new key")
        #expect(try await store.acquire("b", under: limit) == .allowed)
        #expect(try await store.acquire("b", under: limit) != .allowed)
    }

    /// Issue 53, item 12: "café" in NFC and in NFD were one key in memory and two in Redis. A key
    /// is its bytes in every store.
    @Test func aKeyIsItsBytesNotItsCanonicalForm() async throws {
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(composed == decomposed, "equal Strings")
        let store = MemoryRateLimitStore()
        let limit = RateLimit(requests: 1, per: .seconds(3600))
        #expect(try await store.acquire(composed, under: limit) == .allowed)
        #expect(try await store.acquire(decomposed, under: limit) == .allowed, "another key, as in Redis")
        #expect(try await store.acquire(composed, under: limit) != .allowed)
        #expect(store.count == 2)
    }

    /// The table behind it: each key at most once, the one stored longest ago forgotten and
    /// named, a removed key's place reused.
    @Test func theOriginTableForgetsInTheOrderKeysWereStored() {
        var table = OriginTable<Int>(limit: 2)
        #expect(table.store(1, for: "x") == nil)
        #expect(table.store(2, for: "y") == nil)
        #expect(table.store(3, for: "x") == nil, "stored again: the newest")
        #expect(table.store(4, for: "z") == "y")
        #expect(table["x"] == 3 && table["y"] == nil && table["z"] == 4)
        table.remove("x")
        #expect(table.store(5, for: "w") == nil)
        #expect(table.store(6, for: "v") == "z")
        #expect(Set(table.all.map(\.origin)) == ["w", "v"])
        var big = OriginTable<Int>(limit: 10_000)
        for key in 0..<50_000 { big.store(key, for: String(key)) }
        #expect(big.count == 10_000 && big["39999"] == nil && big["40000"] == 40_000 && big["49999"] == 49_999)
    }
}

@Suite struct RateLimitMiddlewareTests {
    static let url = URL(string: "https://api.example.com/quota")!
    /// The key `.origin` keeps the limit under: the origin as sent, its port written out.
    static let origin = "https://api.example.com:443"

    /// `body` throws a `SluiceError` with exactly `code` and `message`.
    static func expectError(
        _ code: SluiceError.Code, _ message: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: @Sendable () async throws -> Void
    ) async {
        let error = await #expect(throws: SluiceError.self, sourceLocation: sourceLocation) { try await body() }
        #expect(error?.code == code, sourceLocation: sourceLocation)
        #expect(error?.message == message, sourceLocation: sourceLocation)
    }

    static func limiter(
        _ limit: RateLimit, whenLimited: RateLimitMiddleware.Configuration.WhenLimited = .failFast, clock: SteppedClock? = nil,
        key: RateLimitMiddleware.Configuration.Key = .origin
    ) -> RateLimitMiddleware {
        let store = clock.map { clock in MemoryRateLimitStore(maxKeys: 100, now: { clock.now }) } ?? MemoryRateLimitStore()
        return RateLimitMiddleware(configuration: .init(limit: limit, key: key, whenLimited: whenLimited), store: store)
    }

    /// Fail fast: the calls the burst allows go, the next is refused with the exact error, nothing
    /// of it sent.
    @Test func aCallOverTheLimitFailsFastNamingTheKeyAndWhenToComeBack() async throws {
        let clock = SteppedClock()
        let transport = MockTransport(replies: [.status(.ok), .status(.ok), .status(.ok)])
        let harness = MiddlewareHarness(Self.limiter(RateLimit(requests: 2, per: .seconds(3600)), clock: clock), transport: transport)
        _ = try await harness.send(HTTPRequest(url: Self.url))
        _ = try await harness.send(HTTPRequest(url: Self.url))
        await Self.expectError(
            .rateLimited,
            "https://api.example.com:443 is over its rate limit of 2 per 3600.0 s, burst 2: GET https://api.example.com/quota "
                + "may go again in 1800.000 s; it was not sent"
        ) { _ = try await harness.send(HTTPRequest(url: Self.url)) }
        #expect(transport.requests.count == 2)
    }

    /// Waiting: three calls at once under one call per 100 ms all go, spread over the rate.
    @Test func callsOverTheLimitWaitTheirTurn() async throws {
        let transport = MockTransport { _, _ in .status(.ok) }
        let harness = MiddlewareHarness(
            Self.limiter(RateLimit(requests: 1, per: .milliseconds(100)), whenLimited: .wait(maxWaiting: 10)), transport: transport)
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 { group.addTask { _ = try await harness.send(HTTPRequest(url: Self.url)) } }
            try await group.waitForAll()
        }
        #expect(transport.requests.count == 3)
        #expect(start.duration(to: .now) >= .milliseconds(200), "the third call waited two intervals")
    }

    /// A store that lets the first call go, then holds every later one until the test opens it:
    /// the call holding the turn waits inside the store for as long as the test needs.
    final class GatedStore: RateLimitStore {
        private let asked = Locked(0)
        private let gate = Locked<(open: Bool, held: [CheckedContinuation<Void, Never>])>((false, []))

        func acquire(_ key: String, under limit: RateLimit, waitingAtMost maxWait: Duration) async throws -> RateLimitDecision {
            let count = asked.withLock { asked -> Int in
                asked += 1
                return asked
            }
            if count > 1 {
                await withCheckedContinuation { continuation in
                    let open = gate.withLock { gate -> Bool in
                        if !gate.open { gate.held.append(continuation) }
                        return gate.open
                    }
                    if open { continuation.resume() }
                }
            }
            return .allowed
        }

        func pause(_ key: String, for duration: Duration, under limit: RateLimit) async throws {}

        func open() {
            let held = gate.withLock { gate -> [CheckedContinuation<Void, Never>] in
                gate.open = true
                defer { gate.held = [] }
                return gate.held
            }
            for continuation in held { continuation.resume() }
        }
    }

    /// Waiting calls go highest priority first: a high one that came last goes before a low one.
    /// The store holds the call that has the turn until both others wait, so no timing decides.
    @Test func waitingCallsGoByPriority() async throws {
        let order = Locked<[String]>([])
        let transport = MockTransport { request, _ in
            order.withLock { $0.append(request.url.lastPathComponent) }
            return .status(.ok)
        }
        let store = GatedStore()
        let limiter = RateLimitMiddleware(
            configuration: .init(limit: RateLimit(requests: 1, per: .seconds(1)), whenLimited: .wait(maxWaiting: 10)), store: store)
        let harness = MiddlewareHarness(limiter, transport: transport)
        func call(_ name: String, _ priority: RequestPriority) -> Task<Void, any Error> {
            var request = HTTPRequest(url: Self.url.appending(path: name))
            request.priority = priority
            return Task { _ = try await harness.send(request) }
        }
        try await call("first", .normal).value
        let holder = call("holder", .normal)  // takes the turn and is held in the store
        try await Wait.until("the holder took the turn") { limiter.turnState(Self.origin).busy }
        let low = call("low", .low)
        try await Wait.until("the low call waits") { limiter.turnState(Self.origin).waiting == 1 }
        let high = call("high", .high)
        try await Wait.until("the high call waits") { limiter.turnState(Self.origin).waiting == 2 }
        store.open()
        for task in [holder, low, high] { try await task.value }
        #expect(order.withLock { $0 } == ["first", "holder", "high", "low"])
        #expect(!limiter.turnState(Self.origin).busy, "an idle key holds no entry")
        #expect(limiter.turnState(Self.origin).waiting == 0)
    }

    /// A wait the deadline cannot cover fails at once, naming both times; a full queue refuses.
    @Test func aWaitPastTheDeadlineOrAFullQueueIsRefused() async throws {
        let clock = SteppedClock()
        let transport = MockTransport { _, _ in .status(.ok) }
        let limiter = Self.limiter(RateLimit(requests: 1, per: .seconds(3600)), whenLimited: .wait(maxWaiting: 0), clock: clock)
        let harness = MiddlewareHarness(limiter, transport: transport)
        _ = try await harness.send(HTTPRequest(url: Self.url))
        await Self.expectError(
            .rateLimited,
            "https://api.example.com:443 is over its rate limit of 1 per 3600.0 s, burst 1: GET https://api.example.com/quota "
                + "may go again in 3600.000 s, past its deadline in 10.0 s; it was not sent"
        ) {
            _ = try await harness.send(HTTPRequest(url: Self.url), context: RequestContext(deadline: .now + .seconds(10)))
        }
        // A call with no deadline takes the turn and waits; with no place to wait, the next is
        // refused; the waiting call, cancelled, gives the turn back.
        let holder = Task { try await harness.send(HTTPRequest(url: Self.url)) }
        try await Wait.until("the holder took the turn") { limiter.turnState(Self.origin).busy }
        await Self.expectError(
            .rateLimited,
            "https://api.example.com:443 is over its rate limit of 1 per 3600.0 s, burst 1: GET https://api.example.com/quota "
                + "was not queued: 0 calls wait already, the most that may; it was not sent"
        ) {
            _ = try await harness.send(HTTPRequest(url: Self.url))
        }
        holder.cancel()
        await #expect(throws: CancellationError.self) { try await holder.value }
        try await Wait.until("the turn is free") { !limiter.turnState(Self.origin).busy }
        #expect(transport.requests.count == 1)
    }

    /// A 429's Retry-After pauses the key for every call sharing it, within `maxPause`.
    @Test func aServersRetryAfterPausesTheKey() async throws {
        let clock = SteppedClock()
        let transport = MockTransport(replies: [.status(.tooManyRequests, headers: ["Retry-After": "30"]), .status(.ok)])
        let harness = MiddlewareHarness(Self.limiter(RateLimit(requests: 100, per: .seconds(1)), clock: clock), transport: transport)
        let answer = try await harness.send(HTTPRequest(url: Self.url))
        #expect(answer.status == .tooManyRequests, "the answer is the caller's")
        await Self.expectError(
            .rateLimited,
            "https://api.example.com:443 is over its rate limit of 100 per 1.0 s, burst 100: GET https://api.example.com/quota "
                + "may go again in 30.000 s; it was not sent"
        ) { _ = try await harness.send(HTTPRequest(url: Self.url)) }
        clock.advance(.seconds(30))
        #expect(try await harness.send(HTTPRequest(url: Self.url)).status == .ok)
    }

    /// Every form of "none left" a server sends, and what is not one.
    @Test(
        arguments: [
            (429, ["Retry-After": "12"], 12_000),
            (503, ["Retry-After": "Sun, 06 Nov 1994 08:49:49 GMT"], 12_000),
            (200, ["Retry-After": "12"], nil),
            (200, ["RateLimit": #""default";r=0;t=7"#], 7_000),
            (200, ["RateLimit": #""default";r=3;t=7"#], nil),
            (200, ["RateLimit": "limit=100, remaining=0, reset=9"], 9_000),
            (200, ["RateLimit-Remaining": "0", "RateLimit-Reset": "4"], 4_000),
            (200, ["X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "5"], 5_000),
            (200, ["X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1700000005"], 5_000),
            (200, ["X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "nan"], nil),
            (200, ["X-RateLimit-Remaining": "1", "X-RateLimit-Reset": "5"], nil),
            (429, ["Retry-After": "-3"], nil),
            (429, ["Retry-After": "1e400"], nil),
        ] as [(Int, [String: String], Int?)])
    func whatTheServerSaysPausesTheKey(status: Int, fields: [String: String], milliseconds: Int?) throws {
        var headers = HTTPFields()
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) { try headers.append(name: name, value: value) }
        let response = HTTPResponse(status: HTTPStatus(code: status), headers: headers)
        let now = Date(timeIntervalSince1970: fields["X-RateLimit-Reset"] == "1700000005" ? 1_700_000_000 : 784_111_777)
        #expect(RateLimitMiddleware.pause(in: response, now: now) == milliseconds.map { .milliseconds($0) })
    }

    /// `RateLimit-Policy` in every draft's form; the strictest member counts; what is not a quota
    /// is skipped.
    @Test(
        arguments: [
            (#""default";q=100;w=60"#, 100, 60),
            ("100;w=60", 100, 60),
            (#""burst";q=10;w=1, "hourly";q=1000;w=3600"#, 1000, 3600),
            (#""a";q=0;w=1, "b";q=5;w=2"#, 5, 2),
            (#""a";q=5"#, nil, nil),
            (#""a";q=x;w=1"#, nil, nil),
            (#""a";q=5;w=0"#, nil, nil),
            ("", nil, nil),
        ] as [(String, Int?, Int?)])
    func theServersPolicyIsRead(field: String, quota: Int?, window: Int?) throws {
        let response = HTTPResponse(status: .ok, headers: try HTTPFields(validating: [("RateLimit-Policy", field)]))
        let policy = RateLimitMiddleware.policy(in: response)
        #expect(policy?.quota == quota)
        #expect(policy?.window == window.map { .seconds($0) })
    }

    /// A stricter policy becomes the key's limit, kept so no server window passes its quota; a
    /// looser one later gives the configured limit back; a looser one never raises it.
    @Test func aStricterPolicyLowersTheLimitAndALooserOneGivesItBack() async throws {
        func answer(_ policy: String) throws -> MockTransport.Reply {
            .response(HTTPResponse(status: .ok, headers: try HTTPFields(validating: [("RateLimit-Policy", policy)])))
        }
        let configured = RateLimit(requests: 100, per: .seconds(1), burst: 20)
        let limiter = RateLimitMiddleware(configuration: .init(limit: configured))
        let harness = MiddlewareHarness(
            limiter, replies: [try answer(#""q";q=1000;w=1"#), try answer(#""q";q=50;w=2"#), try answer(#""q";q=1000;w=1"#)])
        _ = try await harness.send(HTTPRequest(url: Self.url))
        #expect(limiter.limit(for: Self.origin) == configured, "a looser quota does not raise the limit")
        _ = try await harness.send(HTTPRequest(url: Self.url))
        #expect(limiter.limit(for: Self.origin) == RateLimit(requests: 46, per: .seconds(2), burst: 5), "50 per 2 s, a burst of 5")
        _ = try await harness.send(HTTPRequest(url: Self.url))
        #expect(limiter.limit(for: Self.origin) == configured, "a looser quota later gives the configured limit back")
    }

    /// A store that fails lets the call go or refuses it, as configured; a key of `nil` is not limited.
    @Test func aFailingStoreFailsOpenOrClosedAsConfigured() async throws {
        struct Broken: RateLimitStore {
            struct Down: Error, CustomStringConvertible { var description: String { "connection refused" } }
            func acquire(_ key: String, under limit: RateLimit, waitingAtMost maxWait: Duration) async throws -> RateLimitDecision {
                throw Down()
            }
            func pause(_ key: String, for duration: Duration, under limit: RateLimit) async throws { throw Down() }
        }
        let limit = RateLimit(requests: 1, per: .seconds(1))
        let open = MiddlewareHarness(RateLimitMiddleware(configuration: .init(limit: limit), store: Broken()), replies: [.status(.ok)])
        #expect(try await open.send(HTTPRequest(url: Self.url)).status == .ok)
        let closed = MiddlewareHarness(
            RateLimitMiddleware(configuration: .init(limit: limit, whenStoreFails: .refuse), store: Broken()), replies: [.status(.ok)])
        await Self.expectError(
            .rateLimited, "the rate-limit store for https://api.example.com:443 failed (connection refused); the call was not sent"
        ) {
            _ = try await closed.send(HTTPRequest(url: Self.url))
        }
        // A key made from the request's token is quoted hidden, as the token is.
        let byToken = MiddlewareHarness(
            RateLimitMiddleware(
                configuration: .init(limit: limit, key: .perRequest { $0.headers["Authorization"] }, whenStoreFails: .refuse), store: Broken()),
            replies: [.status(.ok)])
        var withToken = HTTPRequest(url: Self.url)
        withToken.headers = ["Authorization": "Bearer s3cr3t-t0k3n"]
        let tokened = withToken
        await Self.expectError(.rateLimited, "the rate-limit store for <redacted> failed (connection refused); the call was not sent") {
            _ = try await byToken.send(tokened)
        }
        let unkeyed = MiddlewareHarness(
            RateLimitMiddleware(configuration: .init(limit: limit, key: .perRequest { _ in nil }, whenStoreFails: .refuse), store: Broken()),
            replies: [.status(.ok)])
        #expect(try await unkeyed.send(HTTPRequest(url: Self.url)).status == .ok)
    }
}
