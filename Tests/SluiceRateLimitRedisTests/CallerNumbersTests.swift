import Foundation
import Sluice
import SluiceRateLimitRedis
import SluiceResilience
import SluiceTestSupport
import Testing

/// SluiceRateLimitRedis's public numbers driven with every hostile value of ``CallerNumbers``,
/// against a fake Redis that lets every call go: held to their ranges, or a
/// ``RedisRateLimitError`` that names the Redis; nothing traps.
@Suite("Caller numbers: SluiceRateLimitRedis", .timeLimit(.minutes(1)))
struct RateLimitRedisCallerNumbersTests {
    static func fakeRedis() throws -> FakeRedis {
        try FakeRedis { _, piece in piece == 0 ? Data(":0\r\n".utf8) : nil }
    }

    static let limit = RateLimit(requests: 10, per: .seconds(1))

    /// An acquire and a pause through a store made with `change`: both succeed, or fail with a
    /// RedisRateLimitError naming the Redis when `mayFail`.
    static func exercise(_ redis: FakeRedis, mayFail: Bool = false, pause: Duration = .seconds(1), _ change: (inout RedisRateLimitStore.Configuration) -> Void)
        async
    {
        var configuration = RedisRateLimitStore.Configuration(port: redis.port, log: { _ in })
        change(&configuration)
        let store = RedisRateLimitStore(configuration: configuration)
        do {
            #expect(try await store.acquire("k", under: limit) == .allowed)
            try await store.pause("k", for: pause, under: limit)
        } catch {
            #expect(mayFail && "\(error)".contains("Redis at 127.0.0.1"), "\(error)")
        }
    }

    @Test(
        .covers(
            "RedisRateLimitStore.Configuration.connectTimeout", "RedisRateLimitStore.Configuration.commandTimeout",
            "RedisRateLimitStore.Configuration.retryInterval", "RedisRateLimitStore.pause(_:for:under:) for",
            "RedisRateLimitStore.acquire(_:under:waitingAtMost:) waitingAtMost"),
        arguments: CallerNumbers.durations)
    func durations(_ duration: Duration) async throws {
        let redis = try Self.fakeRedis()
        defer { redis.shutdown() }
        let short = duration < .milliseconds(100)
        // Too short to connect or answer, it may fail (hiredis takes a zero timeout as none).
        await Self.exercise(redis, mayFail: short) { $0.connectTimeout = duration }
        await Self.exercise(redis, mayFail: short) { $0.commandTimeout = duration }
        await Self.exercise(redis) { $0.retryInterval = duration }
        await Self.exercise(redis, pause: duration) { _ in }
        let store = RedisRateLimitStore(configuration: .init(port: redis.port, log: { _ in }))
        #expect(try await store.acquire("k", under: Self.limit, waitingAtMost: duration) == .allowed)
        // Every number the scripts get is whole microseconds within 0...100 years.
        let numbers = redis.commands.filter { $0.first == "EVAL" }.flatMap { $0.suffix(3) }.map { Int64($0) }
        #expect(!numbers.isEmpty && numbers.allSatisfy { $0.map { (0...3_155_760_000_000_000).contains($0) } == true })
    }

    @Test(.covers("RedisRateLimitStore.Configuration.poolSize"), arguments: CallerNumbers.ints)
    func poolSizes(_ number: Int) async throws {
        let redis = try Self.fakeRedis()
        defer { redis.shutdown() }
        await Self.exercise(redis) { $0.poolSize = number }
        #expect((1...64).contains(RedisRateLimitStore(configuration: .init(poolSize: number)).configuration.poolSize))
    }

    @Test(.covers("RedisRateLimitStore.Configuration.port"), arguments: CallerNumbers.ints + [65_535, 65_536])
    func ports(_ port: Int) async throws {
        let store = RedisRateLimitStore(configuration: .init(port: port, connectTimeout: .milliseconds(200), log: { _ in }))
        await #expect {
            _ = try await store.acquire("k", under: Self.limit)
        } throws: {
            guard let error = $0 as? RedisRateLimitError else { return false }
            return (1...65_535).contains(port)
                ? error.message.contains("unreachable")
                : error.message.contains("the port is not a TCP port (RedisRateLimitStore.Configuration.port, 1...65535)")
        }
    }

    /// A reply that is not a wait (a number past 100 years, a string) is a typed error naming it.
    @Test func aReplyThatIsNotAWaitIsATypedError() async throws {
        for (reply, shown) in [(":9000000000000000000\r\n", "integer 9000000000000000000"), ("+OK\r\n", "status OK")] {
            let redis = try FakeRedis { _, piece in piece == 0 ? Data(reply.utf8) : nil }
            defer { redis.shutdown() }
            let store = RedisRateLimitStore(configuration: .init(port: redis.port, log: { _ in }))
            let error = await #expect(throws: RedisRateLimitError.self) { try await store.acquire("k", under: Self.limit) }
            #expect(error?.message == "Redis at 127.0.0.1:\(redis.port) gave the rate-limit script \(shown), not a wait")
        }
    }
}
