import Sluice

/// What both Redis stores' public configurations share: where Redis is and how the pool uses it.
/// Each store clamps and converts its configuration here, once, rather than each writing it again.
package protocol RedisConnectionConfiguration {
    var host: String { get }
    var port: Int { get }
    var poolSize: Int { get set }
    var connectTimeout: Duration { get set }
    var commandTimeout: Duration { get set }
    var retryInterval: Duration { get set }
    var log: @Sendable (String) -> Void { get }
}

extension RedisConnectionConfiguration {
    /// Held to what Redis and this process can take: the pool to 1...64 connections, each
    /// duration to 0...100 years.
    package mutating func clampConnection() {
        poolSize = poolSize.clamped(to: 1...64)
        connectTimeout = connectTimeout.clampedWait
        commandTimeout = commandTimeout.clampedWait
        retryInterval = retryInterval.clampedWait
    }

    /// The pool's settings, its messages naming `name` (`RedisCacheStore.Configuration`) and
    /// saying what happens while Redis is down and when it is back.
    package func connectionSettings(maxReplySize: Int, name: String, whileDown: String, whenBack: String) -> RedisConnectionSettings {
        RedisConnectionSettings(
            host: host, port: port, poolSize: poolSize, connectTimeout: connectTimeout, commandTimeout: commandTimeout,
            maxReplySize: maxReplySize, retryInterval: retryInterval, log: log, name: name, whileDown: whileDown, whenBack: whenBack)
    }
}
