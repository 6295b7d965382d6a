import Foundation

/// Where ``CacheMiddleware`` keeps responses: one ``CachedResponse`` per key.
///
/// ``MemoryCacheStore`` lives as long as the process (what `Client.standard` uses unless told
/// otherwise); ``SQLiteCacheStore`` keeps responses on disk, shared by threads and processes;
/// `RedisCacheStore` (SluiceCacheRedis) shares one cache across a fleet. A store of your own
/// implements these eight calls; the middleware treats any error from them as a cache miss, never
/// as a failed request.
///
/// ```swift
/// import Foundation
/// import Sluice
/// import SluiceCache
///
/// let store = MemoryCacheStore()
/// let entry = CachedResponse(method: "GET", url: "https://example.com/a", status: 200, headers: [:], body: Data("[]".utf8),
///                            requestTime: Date(), responseTime: Date())
/// try await store.put(entry, for: "GET https://example.com/a")
/// try await store.get("GET https://example.com/a")?.status     // 200
/// try await store.delete(prefix: "GET https://example.com/")    // 1
/// ```
public protocol CacheStore: Sendable {
    /// The entry stored under `key`, or nil.
    func get(_ key: String) async throws -> CachedResponse?
    /// Stores `entry` under `key`, replacing any entry there.
    func put(_ entry: CachedResponse, for key: String) async throws
    /// Removes the entry under `key`; whether there was one.
    @discardableResult func delete(_ key: String) async throws -> Bool
    /// Removes every entry whose key starts with `prefix`; how many.
    @discardableResult func delete(prefix: String) async throws -> Int
    /// Removes everything.
    func clear() async throws
    /// Bytes the entries take (bodies, fields and URLs).
    func totalSize() async throws -> Int
    /// How many entries there are.
    func entryCount() async throws -> Int
    /// Every entry's key and size, least recently used first.
    func items() async throws -> [CacheItem]
}
