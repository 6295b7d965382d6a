import Foundation

/// One entry of a ``CacheStore``, as ``CacheStore/items()`` lists it.
///
/// ```swift
/// import SluiceCache
///
/// for item in try await store.items() where item.size > 1 << 20 {
///     try await store.delete(item.key)
/// }
/// ```
public struct CacheItem: Sendable, Hashable {
    /// The key the entry is stored under.
    public let key: String
    /// Bytes the entry takes.
    public let size: Int
    /// When its response was received.
    public let responseTime: Date

    /// An item: its key, its size in bytes, and when its response arrived.
    public init(key: String, size: Int, responseTime: Date) {
        self.key = key
        self.size = size
        self.responseTime = responseTime
    }
}
