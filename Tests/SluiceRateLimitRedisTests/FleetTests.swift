import Foundation
import Sluice
import SluiceCurl
import SluiceRateLimitRedis
import SluiceResilience
import SluiceTestSupport
import SluiceTesting
import Testing

/// A server that grants `quota` calls per fixed window of `window` (`lowered.quota` from window
/// `lowered.from` on), answering 429 past it, stating its quota in `RateLimit-Policy` on every
/// answer, and counting what it granted and refused in each window since it started.
final class QuotaServer: Sendable {
    let server: MockWebServer
    private let start = ContinuousClock.now
    private let counts = Locked<[Int: (granted: Int, refused: Int)]>([:])

    init(quota initial: Int, window: Duration, lowered: (from: Int, quota: Int)? = nil) throws {
        server = try MockWebServer()
        let (start, counts) = (start, counts)
        server.setHandler { _ in
            let elapsed = start.duration(to: .now)
            let index = Int(elapsed / window)
            let quota = lowered.map { index >= $0.from ? $0.quota : initial } ?? initial
            let policy = ("RateLimit-Policy", "\"fleet\";q=\(quota);w=\(Int(window.timeInterval))")
            let granted = counts.withLock { counts -> Bool in
                var count = counts[index] ?? (0, 0)
                defer { counts[index] = count }
                guard count.granted < quota else {
                    count.refused += 1
                    return false
                }
                count.granted += 1
                return true
            }
            guard granted else {
                let reset = max(1, Int((window * (index + 1) - elapsed).timeInterval.rounded(.up)))
                return MockWebServer.Response(status: 429, headers: [("Retry-After", "\(reset)"), policy], body: "over quota")
            }
            return MockWebServer.Response(status: 200, headers: [policy], body: "ok")
        }
    }

    /// Granted and refused calls per window, by the window's index.
    var windows: [Int: (granted: Int, refused: Int)] { counts.withLock { $0 } }
}

/// Four processes, each a client with its own connection to one redis-server, sharing one quota.
@Suite("RedisRateLimitStore shared by processes", .timeLimit(.minutes(2)))
struct FleetTests {
    struct Outcome: Sendable {
        let ok, tooMany, refused, failed: Int
    }

    /// Runs the helper: `requests` per `periodMilliseconds` shared under one key, for `seconds`.
    static func member(redisPort: Int, url: URL, requests: Int, periodMilliseconds: Int, seconds: Double, whenStoreFails: String)
        async throws -> Outcome
    {
        let process = Process()
        process.executableURL = try BuiltProducts.executable("sluice-ratelimit-helper")
        process.arguments = ["\(redisPort)", url.absoluteString, "\(requests)", "\(periodMilliseconds)", "\(seconds)", whenStoreFails]
        let (data, status) = try await Blocking.output(of: process, mergingErrors: true)
        let text = String(decoding: data, as: UTF8.self)
        let numbers = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard status == 0, numbers.count == 4 else { throw Unexpected(text: "exit \(status): \(text)") }
        return Outcome(ok: numbers[0], tooMany: numbers[1], refused: numbers[2], failed: numbers[3])
    }

    struct Unexpected: Error, CustomStringConvertible {
        let text: String
        var description: String { "the helper printed \(text)" }
    }

    static func fleet(_ count: Int, redisPort: Int, url: URL, requests: Int, periodMilliseconds: Int, seconds: Double, whenStoreFails: String)
        async throws -> [Outcome]
    {
        try await withThrowingTaskGroup(of: Outcome.self) { group in
            for _ in 0..<count {
                group.addTask {
                    try await Self.member(
                        redisPort: redisPort, url: url, requests: requests, periodMilliseconds: periodMilliseconds, seconds: seconds,
                        whenStoreFails: whenStoreFails)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// A quota of 100 calls per 2 s window, four processes holding 95 per 2 s between them (a burst
    /// of 4, so no window can take more than 98): the server refuses none, and each window wholly
    /// inside the run is at least 90% used.
    @Test func fourProcessesShareOneQuotaWithoutA429AndUseMostOfIt() async throws {
        let redis = OwnRedis()
        try await redis.start()
        defer { redis.kill() }
        let quota = try QuotaServer(quota: 100, window: .seconds(2))
        let outcomes = try await Self.fleet(
            4, redisPort: redis.port, url: quota.server.url("/quota"), requests: 95, periodMilliseconds: 2000, seconds: 7,
            whenStoreFails: "refuse")
        let windows = quota.windows
        #expect(outcomes.allSatisfy { $0.tooMany == 0 && $0.failed == 0 && $0.refused == 0 }, "\(outcomes)")
        #expect(windows.values.allSatisfy { $0.refused == 0 }, "\(windows)")
        // Window 0 holds the processes' start; 1 and 2 lie wholly inside the run.
        for index in [1, 2] {
            let granted = windows[index]?.granted ?? 0
            #expect(granted >= 90 && granted <= 100, "window \(index): \(granted) of 100")
        }
        let total = outcomes.reduce(0) { $0 + $1.ok }
        print("fleet: \(total) calls, windows \(windows.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.granted)" })")
    }

    /// The server lowers its quota from 100 to 50 per window in window 2 and says so in
    /// `RateLimit-Policy`: from the next window on, the fleet keeps to the new quota with no 429,
    /// and once the pauses the transition's 429s asked for are over (their `Retry-After` is whole
    /// seconds, so it runs into window 3), it uses at least 90% of it.
    @Test func aQuotaLoweredMidRunIsFollowedWithinOneWindow() async throws {
        let redis = OwnRedis()
        try await redis.start()
        defer { redis.kill() }
        let quota = try QuotaServer(quota: 100, window: .seconds(2), lowered: (from: 2, quota: 50))
        let outcomes = try await Self.fleet(
            4, redisPort: redis.port, url: quota.server.url("/quota"), requests: 95, periodMilliseconds: 2000, seconds: 10.5,
            whenStoreFails: "refuse")
        let windows = quota.windows
        #expect(outcomes.allSatisfy { $0.failed == 0 && $0.refused == 0 }, "\(outcomes)")
        #expect((windows[1]?.refused ?? 0) == 0 && (windows[1]?.granted ?? 0) >= 90, "before the change: \(windows)")
        for index in [3, 4, 5] {
            let window = windows[index] ?? (0, 0)
            #expect(window.refused == 0 && window.granted <= 50, "window \(index), after the change: \(windows)")
        }
        #expect((windows[4]?.granted ?? 0) >= 45, "the quota used once the pauses are over: \(windows)")
        print("lowered: windows \(windows.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.granted) granted, \($0.value.refused) refused" })")
    }

    /// Redis killed mid-run, the fleet set to refuse: calls went before, and after it the limiter
    /// refuses them rather than overrun the quota; the server saw no call over it.
    @Test func aRedisKilledMidRunFailsClosedAsConfigured() async throws {
        let redis = OwnRedis()
        try await redis.start()
        let quota = try QuotaServer(quota: 100, window: .seconds(2))
        async let outcomes = Self.fleet(
            4, redisPort: redis.port, url: quota.server.url("/quota"), requests: 95, periodMilliseconds: 2000, seconds: 4,
            whenStoreFails: "refuse")
        try await Task.sleep(for: .seconds(2))
        redis.kill()
        let results = try await outcomes
        #expect(results.reduce(0) { $0 + $1.ok } > 0, "calls went while Redis was up: \(results)")
        #expect(results.reduce(0) { $0 + $1.refused } > 0, "calls were refused once it was gone: \(results)")
        #expect(results.allSatisfy { $0.tooMany == 0 && $0.failed == 0 }, "\(results)")
        #expect(quota.windows.values.allSatisfy { $0.refused == 0 }, "\(quota.windows)")
    }

    /// Issue 53, item 2: one answer stating `q=1;w=1e12` set the shared key a century ahead, and
    /// every process, a fresh one started with 10 a second too, was refused until someone deleted
    /// it. Learned as one call per `maxPause` (1 s here), the key is free again within it: a
    /// fresh process started right after gets calls through.
    @Test func aCenturyQuotaLocksTheFleetOutNoLongerThanMaxPause() async throws {
        let redis = OwnRedis()
        try await redis.start()
        defer { redis.kill() }
        let server = try MockWebServer()
        let first = Locked(true)
        server.setHandler { _ in
            let teaches = first.withLock { first in
                defer { first = false }
                return first
            }
            return MockWebServer.Response(status: 200, headers: teaches ? [("RateLimit-Policy", #""day";q=1;w=1000000000000"#)] : [], body: "ok")
        }
        let store = RedisRateLimitStore(configuration: .init(port: redis.port, keyPrefix: "fleet-test:", log: { _ in }))
        let limiter = RateLimitMiddleware(
            configuration: .init(limit: RateLimit(requests: 10, per: .seconds(1)), key: .named("fleet"), whenLimited: .failFast, maxPause: .seconds(1)),
            store: store)
        let client = Client(transport: CurlTransport(), middlewares: [limiter])
        _ = try await client.send(HTTPRequest(url: server.url("/teach")))
        #expect(limiter.limit(for: "fleet") == RateLimit(requests: 1, per: .seconds(1), burst: 1))
        // Calls under the learned limit until one is refused: the key is spent, on Redis.
        var refusal: SluiceError?
        for _ in 0..<20 where refusal == nil {
            do {
                _ = try await client.send(HTTPRequest(url: server.url("/spend")))
            } catch let error as SluiceError where error.code == .rateLimited {
                refusal = error
            }
            try await Task.sleep(for: .milliseconds(150))
        }
        let message = try #require(refusal).message
        let word = message.split(separator: " ").drop { $0 != "in" }.dropFirst().first.map(String.init) ?? ""
        let seconds = try #require(Double(word))
        #expect(seconds <= 1.0, "\(message)")
        let fresh = try await Self.member(
            redisPort: redis.port, url: server.url("/fresh"), requests: 10, periodMilliseconds: 1000, seconds: 2.5, whenStoreFails: "refuse")
        #expect(fresh.ok >= 5 && fresh.failed == 0, "a fresh process at 10 a second: \(fresh)")
    }
}
