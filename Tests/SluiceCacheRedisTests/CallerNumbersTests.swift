import Foundation
import Sluice
import SluiceCache
import SluiceCacheRedis
import SluiceTestSupport
import Testing

/// SluiceCacheRedis's public numbers driven with every hostile value of ``CallerNumbers``, against
/// a fake Redis that answers every command: held to their ranges, or a ``RedisCacheError`` that
/// names the setting; nothing traps.
@Suite("Caller numbers: SluiceCacheRedis", .timeLimit(.minutes(1)))
struct RedisCallerNumbersTests {
    static func fakeRedis() throws -> FakeRedis {
        try FakeRedis { command, piece in piece == 0 ? Data((command.first == "GET" ? "$-1\r\n" : "+OK\r\n").utf8) : nil }
    }

    static let entry = CachedResponse(
        method: "GET", url: "https://api.example.com/x", status: 200, headers: [:], body: Data("b".utf8), requestTime: .now, responseTime: .now)

    /// A get and a put through a store made with `change`: both succeed, or fail with a
    /// RedisCacheError whose message contains `naming` (`mayFail`: either).
    static func exercise(
        _ redis: FakeRedis, naming: String? = nil, mayFail: Bool = false, _ change: (inout RedisCacheStore.Configuration) -> Void
    ) async {
        var configuration = RedisCacheStore.Configuration(port: redis.port, log: { _ in })
        change(&configuration)
        let store = RedisCacheStore(configuration: configuration)
        do {
            #expect(try await store.get("k") == nil)
            try await store.put(entry, for: "k")
            #expect(naming == nil || mayFail, "no error naming \(naming ?? "")")
        } catch {
            #expect(naming.map { "\(error)".contains($0) } == true, "\(error)")
        }
    }

    @Test(
        .covers(
            "RedisCacheStore.Configuration.connectTimeout", "RedisCacheStore.Configuration.commandTimeout",
            "RedisCacheStore.Configuration.entryLifetime", "RedisCacheStore.Configuration.retryInterval"),
        arguments: CallerNumbers.durations)
    func durations(_ duration: Duration) async throws {
        let redis = try Self.fakeRedis()
        defer { redis.shutdown() }
        let short = duration < .milliseconds(100)
        // Too short to connect or answer, it may fail (hiredis takes a zero timeout as none): as a
        // RedisCacheError that names the Redis.
        await Self.exercise(redis, naming: short ? "Redis at 127.0.0.1" : nil, mayFail: short) { $0.connectTimeout = duration }
        await Self.exercise(redis, naming: short ? "Redis at 127.0.0.1" : nil, mayFail: short) { $0.commandTimeout = duration }
        await Self.exercise(redis) { $0.entryLifetime = duration }
        await Self.exercise(redis) { $0.retryInterval = duration }
        // The lifetime sent as EX is whole seconds within 1...100 years.
        let lifetimes = redis.commands.filter { $0.first == "SET" }.compactMap { $0.last.flatMap { Int($0) } }
        #expect(lifetimes.allSatisfy { (1...3_155_760_000).contains($0) })
    }

    @Test(.covers("RedisCacheStore.Configuration.poolSize", "RedisCacheStore.Configuration.maxReplySize"), arguments: CallerNumbers.ints)
    func sizes(_ number: Int) async throws {
        let redis = try Self.fakeRedis()
        defer { redis.shutdown() }
        await Self.exercise(redis) { $0.poolSize = number }
        #expect((1...64).contains(RedisCacheStore(configuration: .init(poolSize: number)).configuration.poolSize))
        await Self.exercise(redis, naming: number < 5 ? "RedisCacheStore.Configuration.maxReplySize" : nil) { $0.maxReplySize = number }
    }

    @Test(.covers("RedisCacheStore.Configuration.port"), arguments: CallerNumbers.ints + [65_535, 65_536])
    func ports(_ port: Int) async throws {
        let store = RedisCacheStore(configuration: .init(port: port, connectTimeout: .milliseconds(200), log: { _ in }))
        await #expect {
            _ = try await store.get("k")
        } throws: {
            guard let error = $0 as? RedisCacheError else { return false }
            return (1...65_535).contains(port) ? error.message.contains("unreachable") : error.message.contains("the port is not a TCP port")
        }
    }
}
