import Foundation
import Sluice

/// A ``CacheStore`` in memory, with a size limit and least-recently-used eviction.
///
/// ```swift
/// import SluiceCache
///
/// let store = MemoryCacheStore(configuration: .init(maximumSize: 4 << 20))
/// let cache = CacheMiddleware(store: store)
/// ```
public final class MemoryCacheStore: CacheStore {
    /// The store's limits.
    public struct Configuration: Sendable {
        /// The most bytes kept; the least recently used entries go first. 0: no limit.
        public var maximumSize: Int

        /// Settings with each value given, or its default.
        public init(maximumSize: Int = 16 << 20) {
            self.maximumSize = maximumSize
        }

        /// 16 MiB.
        public static let `default` = Configuration()
    }

    private struct State {
        var entries: [String: (entry: CachedResponse, size: Int, used: UInt64)] = [:]
        var totalSize = 0
        var clock: UInt64 = 0
    }

    /// How it behaves.
    public let configuration: Configuration
    private let state = Locked(State())

    /// One with `configuration`.
    public init(configuration: Configuration = .default) {
        self.configuration = configuration
    }

    public func get(_ key: String) async throws -> CachedResponse? {
        state.withLock { state in
            guard let found = state.entries[key] else { return nil }
            state.clock += 1
            state.entries[key]?.used = state.clock
            return found.entry
        }
    }

    public func put(_ entry: CachedResponse, for key: String) async throws {
        let size = entry.size
        state.withLock { state in
            if let old = state.entries[key] { state.totalSize -= old.size }
            state.clock += 1
            state.entries[key] = (entry, size, state.clock)
            state.totalSize += size
            guard configuration.maximumSize > 0 else { return }
            while state.totalSize > configuration.maximumSize,
                let oldest = state.entries.min(by: { $0.value.used < $1.value.used })
            {
                state.totalSize -= oldest.value.size
                state.entries[oldest.key] = nil
            }
        }
    }

    @discardableResult
    public func delete(_ key: String) async throws -> Bool {
        state.withLock { state in
            guard let old = state.entries.removeValue(forKey: key) else { return false }
            state.totalSize -= old.size
            return true
        }
    }

    @discardableResult
    public func delete(prefix: String) async throws -> Int {
        state.withLock { state in
            let keys = state.entries.keys.filter { $0.hasPrefix(prefix) }
            for key in keys { state.totalSize -= state.entries.removeValue(forKey: key)!.size }
            return keys.count
        }
    }

    public func clear() async throws {
        state.withLock { $0 = State() }
    }

    public func totalSize() async throws -> Int { state.withLock { $0.totalSize } }

    public func entryCount() async throws -> Int { state.withLock { $0.entries.count } }

    public func items() async throws -> [CacheItem] {
        state.withLock { state in
            state.entries.sorted { $0.value.used < $1.value.used }
                .map { CacheItem(key: $0.key, size: $0.value.size, responseTime: $0.value.entry.responseTime) }
        }
    }
}
