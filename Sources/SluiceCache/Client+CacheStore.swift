import Sluice

extension Client {
    /// The store of this client's ``CacheMiddleware`` (the outermost, when there are several), or
    /// `nil` when it has none: to clear the cache, see how much it holds, or look at what is in it.
    ///
    /// ```swift
    /// import Foundation
    /// import Sluice
    /// import SluiceCache
    /// import SluiceStandard
    ///
    /// let client = try Client.standard(baseURL: URL(string: "https://api.example.com/v1"), cache: .memory)
    /// if let cache = client.cacheStore {
    ///     print(try await cache.entryCount(), "entries,", try await cache.totalSize(), "bytes")
    ///     try await cache.delete(prefix: "GET https://api.example.com/v1/users")   // one part of it
    ///     try await cache.clear()                                                   // all of it
    /// }
    /// ```
    public var cacheStore: (any CacheStore)? {
        pipeline.middlewares.lazy.compactMap { ($0 as? CacheMiddleware)?.store }.first
    }
}
