import Dispatch
import Foundation
import Sluice
import SluiceCache
import SluiceRedis

/// A `CacheStore` in Redis, so every worker of a fleet shares one cache.
///
/// - Each entry is one Redis string under ``Configuration/keyPrefix`` + its key, written with
///   `SET … EX` so it expires after ``Configuration/entryLifetime`` (Redis's expiry, not a sweep).
/// - A size bound is Redis's own: run the server with `maxmemory` and `maxmemory-policy
///   allkeys-lru`, and the least recently used entries go first.
/// - `delete(prefix:)`, `clear()` and the listings walk the keys with `SCAN`, never `KEYS`.
/// - A small pool of connections (``Configuration/poolSize``) with timeouts on connecting and on
///   each command; the blocking calls never run on Swift's cooperative threads. Called from a
///   `CurlTransport` event thread with no transfer in flight (a caller running under
///   `withTaskExecutorPreference(transport.executor)`), a command runs right there, so a cache
///   hit costs one Redis round trip; otherwise it runs on the connection's own thread, and no
///   transfer ever waits for Redis.
/// - When Redis is unreachable or slow, calls fail fast with ``RedisCacheError`` (which
///   `CacheMiddleware` treats as a miss, so requests still succeed), the outage is logged once,
///   and the store tries again after ``Configuration/retryInterval`` (a second) until Redis is back.
///
/// ```swift
/// import Sluice
/// import SluiceCache
/// import SluiceCacheRedis
/// import SluiceCurl
///
/// let store = RedisCacheStore(configuration: .init(host: "10.0.0.5", keyPrefix: "shop-api:"))
/// var builder = Client.Builder(transport: CurlTransport())
/// builder.add(CacheMiddleware(store: store))
/// let client = builder.build()
/// ```
public final class RedisCacheStore: CacheStore {
    /// Where Redis is and how the store uses it.
    public struct Configuration: Sendable {
        /// The Redis server's host name or address.
        public var host: String
        /// Its TCP port.
        public var port: Int
        /// Put before every key, so several apps can share one Redis.
        public var keyPrefix: String
        /// How long an entry lives (Redis `EX`).
        public var entryLifetime: Duration
        /// Connections kept open; calls beyond it wait for one.
        public var poolSize: Int
        /// Longest wait to connect.
        public var connectTimeout: Duration
        /// Longest wait for one command: sending it and its whole reply, however it trickles in.
        public var commandTimeout: Duration
        /// The largest reply read, in bytes (64 MiB by default, `CurlTransport`'s limit on a
        /// response body): past it the command fails with ``RedisCacheError`` and the connection
        /// is dropped, before more is held. Replies nested deeper than 7 arrays are refused by
        /// hiredis itself.
        public var maxReplySize: Int = 64 << 20
        /// The most `SCAN` rounds one listing takes (500 keys a round: 50 million keys), so a
        /// server whose cursor never comes back to 0 cannot keep a listing going for ever.
        /// `package`: tests lower it.
        package var maxScanRounds = 100_000
        /// After a failure, calls fail at once for this long, then one tries Redis again.
        public var retryInterval: Duration
        /// Where outages and recoveries are reported (standard error by default).
        public var log: @Sendable (String) -> Void

        /// Settings with each value given, or its default.
        public init(
            host: String = "127.0.0.1", port: Int = 6379, keyPrefix: String = "sluice:", entryLifetime: Duration = .seconds(7 * 86_400),
            poolSize: Int = 4, connectTimeout: Duration = .milliseconds(500), commandTimeout: Duration = .milliseconds(500),
            retryInterval: Duration = .seconds(1),
            log: @escaping @Sendable (String) -> Void = { SystemFile.warn("sluice-cache-redis: " + $0) }
        ) {
            self.host = host
            self.port = port
            self.keyPrefix = keyPrefix
            self.entryLifetime = entryLifetime
            self.poolSize = poolSize
            self.connectTimeout = connectTimeout
            self.commandTimeout = commandTimeout
            self.retryInterval = retryInterval
            self.log = log
        }

        /// 127.0.0.1:6379, prefix `sluice:`, entries for 7 days, 4 connections, 500 ms timeouts,
        /// replies up to 64 MiB, another try a second after a failure.
        public static let `default` = Configuration()
    }

    /// How it behaves.
    public let configuration: Configuration
    private let pool: RedisConnectionPool

    /// One with `configuration`, held to what Redis and this process can take: the pool to
    /// 1...64 connections, each duration to 0...100 years (an entry lifetime to at least a
    /// second). A port outside 1...65535 makes every command fail with ``RedisCacheError`` naming
    /// it (the cache is bypassed, as for a Redis that is down).
    public init(configuration: Configuration = .default) {
        var configuration = configuration
        configuration.clampConnection()
        configuration.entryLifetime = max(.seconds(1), configuration.entryLifetime.clampedWait)
        self.configuration = configuration
        self.pool = RedisConnectionPool(
            configuration: configuration.connectionSettings(
                maxReplySize: configuration.maxReplySize, name: "RedisCacheStore.Configuration",
                whileDown: "the cache is bypassed", whenBack: "the cache is back"))
    }

    /// One command through the pool; its failure as a ``RedisCacheError``.
    private func run(_ arguments: [String], data: Data? = nil, then tail: [String] = []) async throws -> RedisReply {
        do {
            return try await pool.run(arguments, data: data, then: tail)
        } catch let error as RedisError {
            throw RedisCacheError(error.message)
        }
    }

    public func get(_ key: String) async throws -> CachedResponse? {
        let reply = try await run(["GET", configuration.keyPrefix + key])
        guard case .bytes(let data) = reply else { return nil }
        return try RedisEntryCoding.decode(data, key: key)
    }

    public func put(_ entry: CachedResponse, for key: String) async throws {
        let seconds = max(1, configuration.entryLifetime.components.seconds)
        _ = try await run(["SET", configuration.keyPrefix + key], data: RedisEntryCoding.encode(entry), then: ["EX", String(seconds)])
    }

    @discardableResult
    public func delete(_ key: String) async throws -> Bool {
        try await run(["DEL", configuration.keyPrefix + key]).integer == 1
    }

    @discardableResult
    public func delete(prefix: String) async throws -> Int {
        let keys = try await scan(prefix)
        var deleted = 0
        for batch in stride(from: 0, to: keys.count, by: 500) {
            deleted += try await run(["DEL"] + keys[batch..<min(keys.count, batch + 500)]).integer ?? 0
        }
        return deleted
    }

    public func clear() async throws {
        _ = try await delete(prefix: "")
    }

    public func totalSize() async throws -> Int {
        try await items().reduce(0) { $0 + $1.size }
    }

    public func entryCount() async throws -> Int {
        try await scan("").count
    }

    /// Every entry, oldest response first (Redis keeps no access order the store can read).
    public func items() async throws -> [CacheItem] {
        var items: [CacheItem] = []
        for fullKey in try await scan("") {
            guard case .bytes(let data) = try await run(["GET", fullKey]) else { continue }
            let key = String(fullKey.dropFirst(configuration.keyPrefix.count))
            guard let entry = try? RedisEntryCoding.decode(data, key: key) else { continue }
            items.append(CacheItem(key: key, size: entry.size, responseTime: entry.responseTime))
        }
        return items.sorted { $0.responseTime < $1.responseTime }
    }

    /// The full Redis keys under `configuration.keyPrefix + prefix`, by `SCAN` with `MATCH`.
    private func scan(_ prefix: String) async throws -> [String] {
        let pattern = Self.globEscaped(configuration.keyPrefix + prefix) + "*"
        var cursor = "0"
        var keys = Set<String>()
        var rounds = 0
        repeat {
            // A server that never ends the scan (a cursor that never comes back to 0) is refused.
            rounds += 1
            guard rounds <= configuration.maxScanRounds else {
                throw RedisCacheError("SCAN did not end after \(configuration.maxScanRounds) rounds: the server never returned cursor 0")
            }
            let reply = try await run(["SCAN", cursor, "MATCH", pattern, "COUNT", "500"])
            guard case .array(let parts) = reply, parts.count == 2, case .bytes(let next) = parts[0],
                case .array(let found) = parts[1]
            else {
                throw RedisCacheError("SCAN gave an unexpected reply: \(reply)")
            }
            cursor = String(decoding: next, as: UTF8.self)
            for case .bytes(let key) in found { keys.insert(String(decoding: key, as: UTF8.self)) }
        } while cursor != "0"
        return keys.sorted()
    }

    /// `text` with Redis glob characters (`* ? [ ] \`) escaped, so a prefix matches only itself.
    static func globEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "*?[]\\".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}

extension RedisCacheStore.Configuration: RedisConnectionConfiguration {}
