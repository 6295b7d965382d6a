import Foundation
import Sluice
import SluiceCache
import SluiceCacheRedis
import SluiceTestSupport
import SluiceTesting
import Testing

/// What every `CacheStore` must do, written once and run against each store: memory, SQLite and
/// Redis (the redis-server that `make test` starts).
@Suite("The CacheStore contract")
struct CacheStoreContractTests {
    enum Kind: String, CaseIterable, Sendable { case memory, sqlite, redis }

    /// A fresh, empty store of `kind`, and what to do when the test ends.
    static func store(_ kind: Kind) throws -> (store: any CacheStore, folder: TemporaryDirectory?) {
        switch kind {
        case .memory:
            return (MemoryCacheStore(), nil)
        case .sqlite:
            let folder = try TemporaryDirectory(prefix: "sluice-contract")
            return (try SQLiteCacheStore(path: folder.filePath("cache.sqlite")), folder)
        case .redis:
            // A prefix of its own, so tests running at once never see each other's keys.
            let configuration = RedisCacheStore.Configuration(
                host: try InteropServers.value("SLUICE_REDIS_HOST"), port: Int(try InteropServers.value("SLUICE_REDIS_PORT")) ?? 0,
                keyPrefix: "contract-\(UUID().uuidString):"
            )
            return (RedisCacheStore(configuration: configuration), nil)
        }
    }

    static func entry(_ body: String, url: String = "https://example.com/a", seconds: Double = 1_000) -> CachedResponse {
        CachedResponse(
            method: "GET", url: url, status: 200, reasonPhrase: "Fine",
            headers: ["Cache-Control": "max-age=60", "ETag": "\"v1\"", "Set-Cookie": "a=1", "set-cookie": "b=2"],
            body: Data(body.utf8), requestTime: Date(timeIntervalSince1970: seconds),
            responseTime: Date(timeIntervalSince1970: seconds + 0.25), varyValues: ["accept-language": "de", "authorization": nil]
        )
    }

    @Test(arguments: Kind.allCases)
    func anEntryComesBackExactlyAndAPutReplacesIt(_ kind: Kind) async throws {
        let (store, folder) = try Self.store(kind)
        defer { withExtendedLifetime(folder) {} }  // the SQLite file's folder lives to the end
        #expect(try await store.get("GET https://example.com/a") == nil)
        var binary = Self.entry("")
        binary.body = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        binary.reasonPhrase = nil
        try await store.put(binary, for: "GET https://example.com/a")
        #expect(try await store.get("GET https://example.com/a") == binary)
        try await store.put(Self.entry("second"), for: "GET https://example.com/a")
        #expect(try await store.get("GET https://example.com/a") == Self.entry("second"))
        #expect(try await store.entryCount() == 1)
        try await store.clear()
    }

    @Test(arguments: Kind.allCases)
    func deletesByKeyByPrefixAndAll(_ kind: Kind) async throws {
        let (store, folder) = try Self.store(kind)
        defer { withExtendedLifetime(folder) {} }  // the SQLite file's folder lives to the end
        let keys = [
            "GET https://example.com/c/1", "GET https://example.com/c/2", "GET https://example.com/d",
            "GET https://example.com/c*", "GET https://example.com/c?x=[1]",
        ]
        for (index, key) in keys.enumerated() { try await store.put(Self.entry("\(index)"), for: key) }
        #expect(try await store.delete("GET https://example.com/d"))
        #expect(try await !store.delete("GET https://example.com/d"))
        // Glob characters in a prefix are plain characters.
        #expect(try await store.delete(prefix: "GET https://example.com/c*") == 1)
        #expect(try await store.delete(prefix: "GET https://example.com/c/") == 2)
        #expect(try await store.delete(prefix: "GET https://example.com/%") == 0)
        #expect(try await store.entryCount() == 1)
        #expect(try await store.get("GET https://example.com/c?x=[1]") == Self.entry("4"))
        try await store.clear()
        #expect(try await store.entryCount() == 0)
        #expect(try await store.items().isEmpty)
    }

    @Test(arguments: Kind.allCases)
    func itemsAndSizesAddUp(_ kind: Kind) async throws {
        let (store, folder) = try Self.store(kind)
        defer { withExtendedLifetime(folder) {} }  // the SQLite file's folder lives to the end
        let entries = (0..<5).map { Self.entry(String(repeating: "x", count: $0 * 100), url: "https://example.com/\($0)", seconds: Double(1_000 + $0)) }
        for (index, entry) in entries.enumerated() { try await store.put(entry, for: "GET https://example.com/\(index)") }
        let items = try await store.items()
        // Order is the store's own (least recently used, or oldest response in Redis): compared as sets.
        #expect(Set(items.map(\.key)) == Set((0..<5).map { "GET https://example.com/\($0)" }))
        #expect(Set(items.map(\.size)) == Set(entries.map(\.size)))
        #expect(try await store.totalSize() == entries.reduce(0) { $0 + $1.size })
        #expect(try await store.entryCount() == 5)
        try await store.clear()
    }
}
