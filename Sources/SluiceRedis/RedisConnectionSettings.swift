/// What a ``RedisConnectionPool`` connects to and how it behaves, as the store that owns it
/// configured it; and the words its messages use for that store (`the cache is bypassed`).
package struct RedisConnectionSettings: Sendable {
    package var host: String
    package var port: Int
    package var poolSize: Int
    package var connectTimeout: Duration
    package var commandTimeout: Duration
    package var maxReplySize: Int
    package var retryInterval: Duration
    package var log: @Sendable (String) -> Void
    /// The configuration type a message names a setting of: `RedisCacheStore.Configuration`.
    package var name: String
    /// What happens while Redis is down: `the cache is bypassed`.
    package var whileDown: String
    /// What comes back when Redis answers again: `the cache is back`.
    package var whenBack: String

    package init(
        host: String, port: Int, poolSize: Int, connectTimeout: Duration, commandTimeout: Duration, maxReplySize: Int,
        retryInterval: Duration, log: @escaping @Sendable (String) -> Void, name: String, whileDown: String, whenBack: String
    ) {
        self.host = host
        self.port = port
        self.poolSize = poolSize
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        self.maxReplySize = maxReplySize
        self.retryInterval = retryInterval
        self.log = log
        self.name = name
        self.whileDown = whileDown
        self.whenBack = whenBack
    }
}
