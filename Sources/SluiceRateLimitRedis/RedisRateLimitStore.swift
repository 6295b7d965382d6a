import Foundation
import Sluice
import SluiceRedis
import SluiceResilience

/// A `RateLimitStore` in Redis, so every process of a fleet that points at the same server spends
/// one quota together.
///
/// - Each key's place in its rate is one Redis string under ``Configuration/keyPrefix`` + the key:
///   the time its next call would be on the steady rate (GCRA), in microseconds of Redis's own
///   clock (`TIME`), so the machines' clocks never disagree. It expires once the rate is idle.
/// - Each decision is one Lua script (`EVAL`): read, decide, write in one round trip, atomically,
///   so two processes asking at once never both take the last place.
/// - A small pool of connections with timeouts on connecting and on each command, run off Swift's
///   cooperative threads. When Redis is unreachable or slow, calls fail fast with
///   ``RedisRateLimitError``, the outage is logged once, and the store tries again after
///   ``Configuration/retryInterval``; `RateLimitMiddleware` then lets calls go or refuses them, as
///   its `whenStoreFails` says.
///
/// ```swift
/// import Sluice
/// import SluiceCurl
/// import SluiceRateLimitRedis
/// import SluiceResilience
///
/// let store = RedisRateLimitStore(configuration: .init(host: "10.0.0.5"))
/// let quota = RateLimit(requests: 100, per: .seconds(1))
/// var builder = Client.Builder(transport: CurlTransport())
/// builder.add(RateLimitMiddleware(configuration: .init(limit: quota, key: .named("payments")), store: store))
/// let client = builder.build()
/// ```
public final class RedisRateLimitStore: RateLimitStore {
    /// Where Redis is and how the store uses it.
    public struct Configuration: Sendable {
        /// The Redis server's host name or address.
        public var host: String
        /// Its TCP port.
        public var port: Int
        /// Put before every key, so several apps can share one Redis.
        public var keyPrefix: String
        /// Connections kept open; calls beyond it wait for one.
        public var poolSize: Int
        /// Longest wait to connect.
        public var connectTimeout: Duration
        /// Longest wait for one command: sending it and its whole reply.
        public var commandTimeout: Duration
        /// After a failure, calls fail at once for this long, then one tries Redis again.
        public var retryInterval: Duration
        /// Where outages and recoveries are reported (standard error by default).
        public var log: @Sendable (String) -> Void

        /// Settings with each value given, or its default.
        public init(
            host: String = "127.0.0.1", port: Int = 6379, keyPrefix: String = "sluice:ratelimit:", poolSize: Int = 4,
            connectTimeout: Duration = .milliseconds(500), commandTimeout: Duration = .milliseconds(200),
            retryInterval: Duration = .seconds(1),
            log: @escaping @Sendable (String) -> Void = { SystemFile.warn("sluice-ratelimit-redis: " + $0) }
        ) {
            self.host = host
            self.port = port
            self.keyPrefix = keyPrefix
            self.poolSize = poolSize
            self.connectTimeout = connectTimeout
            self.commandTimeout = commandTimeout
            self.retryInterval = retryInterval
            self.log = log
        }

        /// 127.0.0.1:6379, prefix `sluice:ratelimit:`, 4 connections, 500 ms to connect, 200 ms a
        /// command, another try a second after a failure.
        public static let `default` = Configuration()
    }

    /// How it behaves.
    public let configuration: Configuration
    private let pool: RedisConnectionPool

    /// One with `configuration`, held to what Redis and this process can take: the pool to 1...64
    /// connections, each duration to 0...100 years. A port outside 1...65535 makes every command
    /// fail with ``RedisRateLimitError`` naming it, as for a Redis that is down.
    public init(configuration: Configuration = .default) {
        var configuration = configuration
        configuration.clampConnection()
        self.configuration = configuration
        pool = RedisConnectionPool(
            configuration: configuration.connectionSettings(
                maxReplySize: 64 << 10, name: "RedisRateLimitStore.Configuration",
                whileDown: "the rate limit cannot be read", whenBack: "the rate limit is shared again"))
    }

    public func acquire(_ key: String, under limit: RateLimit, waitingAtMost maxWait: Duration) async throws -> RateLimitDecision {
        let wait = try await run(Self.acquireScript, key: key, limit: limit, pause: maxWait.clampedWait)
        if wait == 0 { return .allowed }
        return wait > 0 ? .reserved(after: .microseconds(wait)) : .limited(retryAfter: .microseconds(wait.magnitude))
    }

    public func pause(_ key: String, for duration: Duration, under limit: RateLimit) async throws {
        _ = try await run(Self.pauseScript, key: key, limit: limit, pause: duration.clampedWait)
    }

    /// Gives back a place a call reserved and will not use: the key's arrival time moves back one
    /// interval, never before Redis's now (one script, atomic with every other process's).
    public func release(_ key: String, under limit: RateLimit) async throws {
        _ = try await run(Self.releaseScript, key: key, limit: limit, pause: .zero)
    }

    /// Runs `script` on `key` with the rate's interval and burst and `pause` (the pause, or the
    /// longest wait for a reservation), in microseconds; its integer reply.
    private func run(_ script: String, key: String, limit: RateLimit, pause: Duration) async throws -> Int64 {
        let reply: RedisReply
        do {
            reply = try await pool.run([
                "EVAL", script, "1", configuration.keyPrefix + key, String(Self.microseconds(limit.period / limit.requests)),
                String(limit.burst), String(Self.microseconds(pause)),
            ])
        } catch let error as RedisError {
            throw RedisRateLimitError(error.message)
        }
        guard let value = reply.integer, value.magnitude <= 3_155_760_000_000_000 else {
            throw RedisRateLimitError("Redis at \(configuration.host):\(configuration.port) gave the rate-limit script \(reply), not a wait")
        }
        return Int64(value)
    }

    /// At least 1 µs (an interval of 0 would let every call go), held to 100 years.
    static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.clampedWait.components
        return max(1, seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
    }

    /// GCRA on Redis's clock: the key holds the theoretical arrival time of its next call. A call
    /// at `now` would move it to `max(arrival, now) + interval`; it may go when that is at most
    /// `burst` intervals ahead of `now`, or reserve that moment when it is at most `ARGV[3]`
    /// microseconds away. Returns 0 when the call may go now, the microseconds to the moment it
    /// reserved, or minus the microseconds to the next free place when it reserved nothing.
    /// Numbers are written with `%.0f`: Lua's own `tostring` writes `1.7e+15`.
    static let acquireScript = """
        local clock = redis.call('TIME')
        local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
        local interval = tonumber(ARGV[1])
        local burst = tonumber(ARGV[2])
        local arrival = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
        if arrival < now then arrival = now end
        local next = arrival + interval
        local wait = math.min(next - interval * burst - now, 3155760000000000)
        if wait > tonumber(ARGV[3]) then return -wait end
        redis.call('SET', KEYS[1], string.format('%.0f', next), 'PX', math.min(math.ceil((next - now) / 1000) + 1, 3155760000000))
        if wait > 0 then return wait end
        return 0
        """

    /// Moves the arrival time back one interval, not before now.
    static let releaseScript = """
        local clock = redis.call('TIME')
        local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
        local interval = tonumber(ARGV[1])
        local arrival = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
        if arrival <= now then return 0 end
        local back = math.max(now, arrival - interval)
        redis.call('SET', KEYS[1], string.format('%.0f', back), 'PX', math.min(math.ceil((back - now) / 1000) + 1, 3155760000000))
        return 0
        """

    /// Lets no call go for the pause, and then one: the arrival time that gives exactly that,
    /// unless the key's own is later already.
    static let pauseScript = """
        local clock = redis.call('TIME')
        local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
        local interval = tonumber(ARGV[1])
        local burst = tonumber(ARGV[2])
        local paused = now + tonumber(ARGV[3]) + interval * (burst - 1)
        local arrival = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
        if paused > arrival then
          redis.call('SET', KEYS[1], string.format('%.0f', paused), 'PX', math.min(math.ceil((paused - now) / 1000) + 1, 3155760000000))
        end
        return 0
        """
}

extension RedisRateLimitStore.Configuration: RedisConnectionConfiguration {}

/// Why a ``RedisRateLimitStore`` call failed: Redis unreachable, slow, refusing the script, or an
/// answer that is not a wait. `RateLimitMiddleware` lets the call go or refuses it, as its
/// `whenStoreFails` says.
///
/// ```swift
/// import SluiceRateLimitRedis
/// import SluiceResilience
///
/// let store = RedisRateLimitStore()
/// do { _ = try await store.acquire("payments", under: RateLimit(requests: 100, per: .seconds(1))) }
/// catch let error as RedisRateLimitError { print(error) }   // Redis at 127.0.0.1:6379 is unreachable: …
/// ```
public struct RedisRateLimitError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
