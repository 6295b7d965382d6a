import Foundation
import Sluice
import SluiceCurl
import SluiceRateLimitRedis
import SluiceResilience
import SluiceTestSupport
import SluiceTesting
import Testing

/// Stores with pools of their own, as separate processes have, sharing one redis-server.
@Suite("RedisRateLimitStore")
struct RedisRateLimitStoreTests {
    static let url = URL(string: "https://api.example.com/pay")!

    struct Unexpected: Error {}

    /// The seconds in a wait, for bounds.
    static func seconds(_ decision: RateLimitDecision) -> Double? {
        if case .limited(let after) = decision { return after.timeInterval }
        return nil
    }

    /// One rate, two stores: what one spends, the other cannot; a pause one sees, the other keeps.
    @Test func storesSharingARedisShareOneRate() async throws {
        let redis = OwnRedis()
        try await redis.start()
        defer { redis.kill() }
        let one = RedisRateLimitStore(configuration: .init(port: redis.port, keyPrefix: "shared:"))
        let two = RedisRateLimitStore(configuration: .init(port: redis.port, keyPrefix: "shared:"))
        let limit = RateLimit(requests: 2, per: .seconds(3600))
        #expect(try await one.acquire("payments", under: limit) == .allowed)
        #expect(try await two.acquire("payments", under: limit) == .allowed)
        let wait = try #require(Self.seconds(try await one.acquire("payments", under: limit)))
        #expect(wait > 1790 && wait <= 1800, "the next place is half an hour on, on Redis's clock: \(wait)")
        #expect(try await two.acquire("payments", under: limit) != .allowed)
        #expect(try await two.acquire("other", under: limit) == .allowed, "each key its own rate")

        // A wait within the one allowed reserves the next free place, in the order asked: the
        // k-th place is k seconds after the first call, on Redis's clock. Each call's wait is
        // checked against the instants around it, so a slow machine cannot fail it.
        let slow = RateLimit(requests: 1, per: .seconds(1))
        let start = ContinuousClock.now
        #expect(try await one.acquire("queue", under: slow) == .allowed)
        let started = ContinuousClock.now
        func expectPlace(_ place: Int, _ decision: RateLimitDecision, asked: ContinuousClock.Instant, answered: ContinuousClock.Instant) {
            let slack = Duration.milliseconds(20)  // Redis's clock against this one
            let wait = decision.wait
            // The place, seen from this clock, lies in [asked + wait, answered + wait]; the first
            // call in [start, started]: the two must meet `place` seconds apart.
            #expect(asked + wait <= started + .seconds(place) + slack && answered + wait >= start + .seconds(place) - slack, "\(decision)")
        }
        var asked = ContinuousClock.now
        let first = try await two.acquire("queue", under: slow, waitingAtMost: .seconds(10))
        guard case .reserved = first else { throw Unexpected() }
        expectPlace(1, first, asked: asked, answered: .now)
        asked = .now
        let second = try await one.acquire("queue", under: slow, waitingAtMost: .seconds(10))
        guard case .reserved = second else { throw Unexpected() }
        expectPlace(2, second, asked: asked, answered: .now)
        asked = .now
        let refused = try await two.acquire("queue", under: slow, waitingAtMost: .milliseconds(100))
        guard case .limited = refused else { throw Unexpected() }
        expectPlace(3, refused, asked: asked, answered: .now)

        let quick = RateLimit(requests: 1000, per: .seconds(1))
        #expect(try await one.acquire("paused", under: quick) == .allowed)
        try await one.pause("paused", for: .seconds(30), under: quick)
        let paused = try #require(Self.seconds(try await two.acquire("paused", under: quick)))
        #expect(paused > 29 && paused <= 30.001, "a pause one store saw holds the other: \(paused)")
    }

    /// Four clients, each with its own store, against one quota: together they never pass it.
    @Test func aFleetOfClientsNeverPassesTheQuota() async throws {
        let redis = OwnRedis()
        try await redis.start()
        defer { redis.kill() }
        let sent = Locked(0)
        let limit = RateLimit(requests: 40, per: .seconds(1), burst: 4)
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                let store = RedisRateLimitStore(configuration: .init(port: redis.port, keyPrefix: "fleet:"))
                let limiter = RateLimitMiddleware(configuration: .init(limit: limit, key: .named("quota")), store: store)
                let harness = MiddlewareHarness(
                    limiter,
                    transport: MockTransport { _, _ in
                        sent.withLock { $0 += 1 }
                        return .status(.ok)
                    })
                group.addTask {
                    for _ in 0..<10 { _ = try await harness.send(HTTPRequest(url: Self.url)) }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = start.duration(to: .now).timeInterval
        #expect(sent.withLock { $0 } == 40)
        // 40 calls under 40 a second with a burst of 4: the last could go no sooner than 36 intervals in.
        #expect(elapsed >= 0.85, "40 calls took \(elapsed) s; the quota allows them in no less than 0.9 s")
    }

    /// Redis killed: the middleware lets calls go, or refuses them naming the store's error, as
    /// configured; once Redis is back, the limit is shared again.
    @Test func aRedisThatDiesFailsOpenOrClosedAsConfigured() async throws {
        let redis = OwnRedis()
        try await redis.start()
        let log = Locked([String]())
        let store = RedisRateLimitStore(
            configuration: .init(port: redis.port, retryInterval: .seconds(2), log: { line in log.withLock { $0.append(line) } }))
        let limit = RateLimit(requests: 1, per: .seconds(3600))
        let open = MiddlewareHarness(
            RateLimitMiddleware(configuration: .init(limit: limit, key: .named("k"), whenLimited: .failFast), store: store),
            transport: MockTransport { _, _ in .status(.ok) })
        let closed = MiddlewareHarness(
            RateLimitMiddleware(configuration: .init(limit: limit, key: .named("k"), whenLimited: .failFast, whenStoreFails: .refuse), store: store),
            transport: MockTransport { _, _ in .status(.ok) })
        #expect(try await open.send(HTTPRequest(url: Self.url)).status == .ok)
        await #expect(throws: SluiceError.self) { try await closed.send(HTTPRequest(url: Self.url)) }

        redis.kill()
        #expect(try await open.send(HTTPRequest(url: Self.url)).status == .ok, "fails open: the call goes")
        let error = await #expect(throws: SluiceError.self) { try await closed.send(HTTPRequest(url: Self.url)) }
        #expect(error?.code == .rateLimited)
        #expect(
            error?.message == "the rate-limit store for k failed (Redis at 127.0.0.1:\(redis.port) is unreachable; "
                + "the rate limit cannot be read); the call was not sent")
        #expect(
            log.withLock { $0 }.contains {
                $0.hasPrefix("Redis at 127.0.0.1:\(redis.port)") && $0.hasSuffix("; the rate limit cannot be read until Redis answers again")
            })

        try await redis.start()
        var answered = false
        for _ in 0..<100 where !answered {
            try await Task.sleep(for: .milliseconds(100))
            answered = (try? await store.acquire("again", under: limit)) == .allowed
        }
        #expect(answered, "the store answers once Redis is back and the retry interval has passed")
        #expect(log.withLock { $0 }.last == "Redis at 127.0.0.1:\(redis.port) answers again; the rate limit is shared again")
    }

    /// Issue 53, item 12: a key is its bytes, in Redis as in memory: "café" in NFC and in NFD are
    /// two keys in both.
    @Test func aKeyIsItsBytesInRedisAsInMemory() async throws {
        let redis = OwnRedis()
        try await redis.start()
        defer { redis.kill() }
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        let limit = RateLimit(requests: 1, per: .seconds(3600))
        let shared = RedisRateLimitStore(configuration: .init(port: redis.port, keyPrefix: "nf:"))
        let memory = MemoryRateLimitStore()
        for store in [shared, memory] as [any RateLimitStore] {
            #expect(try await store.acquire(composed, under: limit) == .allowed)
            #expect(try await store.acquire(decomposed, under: limit) == .allowed)
            #expect(try await store.acquire(composed, under: limit) != .allowed)
            #expect(try await store.acquire(decomposed, under: limit) != .allowed)
        }
    }

    /// Issue 53, item 12: a place reserved and not used is given back on Redis too.
    @Test func aReservedPlaceIsGivenBack() async throws {
        let redis = OwnRedis()
        try await redis.start()
        defer { redis.kill() }
        let store = RedisRateLimitStore(configuration: .init(port: redis.port, keyPrefix: "release:"))
        let limit = RateLimit(requests: 1, per: .seconds(100))
        #expect(try await store.acquire("k", under: limit) == .allowed)
        guard case .reserved = try await store.acquire("k", under: limit, waitingAtMost: .seconds(200)) else {
            Issue.record("the second place was not reserved")
            return
        }
        let before = try #require(Self.seconds(try await store.acquire("k", under: limit)))
        try await store.release("k", under: limit)
        let after = try #require(Self.seconds(try await store.acquire("k", under: limit)))
        #expect(before > 199 && before <= 200, "\(before)")
        #expect(after > 99 && after <= 100, "one interval back: \(after)")
    }

    /// Issue 53, item 6 (THREATS §15): with `prefersTransportExecutor`, the store's blocking
    /// command ran on the transport's event thread, and an unrelated call on the same transport
    /// waited for Redis. Redis here holds its reply until the test lets it go: the other call is
    /// answered meanwhile.
    @Test func aRedisThatHoldsItsReplyNeverHoldsTheTransportsEventThread() async throws {
        let reply = TestGate()
        defer { reply.open() }
        let redis = try FakeRedis { _, piece in
            guard piece == 0 else { return nil }
            _ = reply.wait(timeout: .seconds(30))
            return Data(":0\r\n".utf8)
        }
        defer { redis.shutdown() }
        let server = try MockWebServer()
        server.setHandler { _ in .init(status: 200, body: "ok") }
        let transport = CurlTransport()
        let store = RedisRateLimitStore(configuration: .init(port: redis.port, commandTimeout: .seconds(30), log: { _ in }))
        let limited = Client(
            transport: transport,
            middlewares: [RateLimitMiddleware(configuration: .init(limit: RateLimit(requests: 10, per: .seconds(1)), whenStoreFails: .refuse), store: store)],
            configuration: .init(prefersTransportExecutor: true))
        let held = Task { try await limited.send(HTTPRequest(url: server.url("/limited"))) }
        try await Wait.until("the store's command reached Redis") { !redis.commands.isEmpty }
        let other = try await Client(transport: transport).send(HTTPRequest(url: server.url("/other")), timeout: .seconds(10))
        #expect(other.status == .ok)
        #expect(server.requests.map(\.target) == ["/other"], "answered while Redis still held its reply")
        reply.open()
        #expect(try await held.value.status == .ok)
    }

    /// Issue 53, item 7: commands queued behind a stalled Redis each waited out their own 200 ms,
    /// so 120 callers set to fail open took up to 6 s. An outage one command sees is seen by the
    /// queue, and the wait for a connection counts against the same timeout: every caller has its
    /// answer within about one timeout.
    @Test func aStalledRedisFailsEveryQueuedCallerOpenWithinAboutOneTimeout() async throws {
        let release = TestGate()
        defer { release.open() }
        let redis = try FakeRedis { _, _ in
            _ = release.wait(timeout: .seconds(30))
            return nil
        }
        defer { redis.shutdown() }
        let store = RedisRateLimitStore(configuration: .init(port: redis.port, poolSize: 4, commandTimeout: .milliseconds(200), log: { _ in }))
        let limiter = RateLimitMiddleware(
            configuration: .init(limit: RateLimit(requests: 1_000, per: .seconds(1)), key: .perRequest { $0.url.path }), store: store)
        let harness = MiddlewareHarness(limiter, transport: MockTransport { _, _ in .status(.ok) })
        let start = ContinuousClock.now
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for caller in 0..<120 {
                group.addTask { try await harness.send(HTTPRequest(url: URL(string: "https://api.example.com/\(caller)")!)).status.code }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let elapsed = start.duration(to: .now)
        print("120 callers behind a stalled Redis: all answered in \(elapsed)")
        #expect(statuses.count == 120 && statuses.allSatisfy { $0 == 200 }, "each failed open")
        #expect(elapsed < TestTiming.scaled(.seconds(2)), "\(elapsed), where 30 deep queues of 200 ms took 6 s")
    }

    /// Blocking work started on an event thread is handed to a thread of its own; anywhere else it
    /// runs in place.
    @Test func blockingWorkLeavesTheEventThread() async throws {
        let transport = CurlTransport()
        let executor = try #require(transport.preferredExecutor)
        let onEventThread = await withTaskExecutorPreference(executor) {
            (BlockingWork.handsOff, (try? await BlockingWork.run { EventThread.isCurrent }) ?? true)
        }
        #expect(onEventThread.0 == true, "the task ran on the event thread")
        #expect(onEventThread.1 == false, "its blocking work did not")
        #expect(BlockingWork.handsOff == false)
    }
}
