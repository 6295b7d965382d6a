/// Why a ``RedisCacheStore`` call failed: Redis unreachable, slow, refusing a command, or an entry
/// that cannot be read. `CacheMiddleware` treats it as a cache miss, so the request still goes out.
///
/// ```swift
/// import SluiceCache
/// import SluiceCacheRedis
///
/// do { _ = try await store.get("GET https://example.com/") }
/// catch let error as RedisCacheError { print(error) }   // Redis at 127.0.0.1:6379 is unreachable: …
/// ```
public struct RedisCacheError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
