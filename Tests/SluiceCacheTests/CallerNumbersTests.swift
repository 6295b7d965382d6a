import Foundation
import Sluice
import SluiceCache
import SluiceTestSupport
import SluiceTesting
import Testing

/// SluiceCache's public numbers driven with every hostile value of ``CallerNumbers``: sizes,
/// lifetimes and fractions are held to their ranges, NaN is `.misconfigured` before anything is
/// sent, and nothing traps.
@Suite("Caller numbers: SluiceCache")
struct CacheCallerNumbersTests {
    static let url = URL(string: "https://api.example.com/x")!

    /// Two calls through a cache over `store`: the first fetches and stores, the second is
    /// served or fetched again; both answer 200 with the body.
    static func twoCalls(_ cache: CacheMiddleware, configure: (inout HTTPRequest) -> Void = { _ in }) async throws -> MockTransport {
        let transport = MockTransport { _, _ in
            .status(.ok, headers: ["Cache-Control": "max-age=60", "Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"], body: "body")
        }
        let client = Client(transport: transport, middlewares: [cache])
        for _ in 0..<2 {
            var request = HTTPRequest(url: url)
            configure(&request)
            let response = try await client.send(request)
            let body = try await response.bodyStream?.collect() ?? response.body
            #expect(body == Data("body".utf8))
        }
        return transport
    }

    @Test(.covers("HTTPRequest.cacheTTL"), arguments: CallerNumbers.ints)
    func ttl(_ ttl: Int) async throws {
        let transport = try await Self.twoCalls(CacheMiddleware(store: MemoryCacheStore())) { $0.cacheTTL = ttl }
        // Fresh for the second call unless the TTL made it stale at once. A TTL of 1 s may also
        // have passed between the two calls on a loaded machine; its lifetime is checked below.
        if ttl == 1 {
            #expect((1...2).contains(transport.requests.count))
        } else {
            #expect(transport.requests.count == (ttl < 0 ? 2 : 1))
        }
        let strategy = CacheStrategy()
        let entry = CachedResponse(method: "GET", url: Self.url.absoluteString, status: 200, headers: [:], body: Data(), requestTime: .now, responseTime: .now)
        let lifetime = strategy.freshnessLifetime(of: entry, ttl: ttl)
        #expect(lifetime == (ttl == 0 || ttl >= CacheControl.maximumDeltaSeconds ? .max : max(0, ttl)))
    }

    @Test(
        .covers("CacheMiddleware.Configuration.heuristicFraction", "CacheStrategy.init(isShared:heuristicFraction:targetedFields:) heuristicFraction"),
        arguments: CallerNumbers.doubles)
    func heuristicFraction(_ fraction: Double) async throws {
        let strategy = CacheStrategy(heuristicFraction: fraction)
        #expect(strategy.heuristicFraction == (fraction.isNaN ? 0 : min(1, max(0, fraction))))
        let cache = CacheMiddleware(store: MemoryCacheStore(), configuration: .init(heuristicFraction: fraction))
        if fraction.isNaN {
            let transport = MockTransport.successful()
            let client = Client(transport: transport, middlewares: [cache])
            await #expect {
                _ = try await client.send(HTTPRequest(url: Self.url))
            } throws: {
                ($0 as? SluiceError)?.code == .misconfigured && "\($0)".contains("CacheMiddleware.Configuration.heuristicFraction is NaN")
            }
            #expect(transport.requests.isEmpty)
        } else {
            _ = try await Self.twoCalls(cache)
        }
    }

    @Test(
        .covers(
            "CacheMiddleware.Configuration.maxBackgroundRevalidations", "CacheMiddleware.Configuration.maxStreamedBodySize",
            "MemoryCacheStore.Configuration.maximumSize"),
        arguments: CallerNumbers.ints)
    func cacheCounts(_ count: Int) async throws {
        var configuration = CacheMiddleware.Configuration()
        configuration.maxBackgroundRevalidations = count
        configuration.maxStreamedBodySize = count
        _ = try await Self.twoCalls(CacheMiddleware(store: MemoryCacheStore(), configuration: configuration))
        _ = try await Self.twoCalls(CacheMiddleware(store: MemoryCacheStore(), configuration: configuration)) { $0.streamsResponseBody = true }
        let store = MemoryCacheStore(configuration: .init(maximumSize: count))
        let transport = try await Self.twoCalls(CacheMiddleware(store: store))
        // A store of 0 or less bytes keeps nothing... or, with no limit (Int.max), keeps the entry.
        #expect(transport.requests.count == (count >= 1_000 ? 1 : 2) || count <= 0)
        #expect(try await store.items().allSatisfy { $0.size > 0 })
    }

    @Test(.covers("CacheMiddleware.Configuration.backgroundRevalidationTimeout"), arguments: CallerNumbers.durations)
    func revalidationTimeout(_ timeout: Duration) async throws {
        var configuration = CacheMiddleware.Configuration()
        configuration.backgroundRevalidationTimeout = timeout
        let cache = CacheMiddleware(store: MemoryCacheStore(), configuration: configuration)
        #expect(cache.configuration.backgroundRevalidationTimeout == timeout.clampedWait)
        let transport = MockTransport { _, _ in .status(.ok, headers: ["Cache-Control": "max-age=0, stale-while-revalidate=60"], body: "body") }
        let client = Client(transport: transport, middlewares: [cache])
        for _ in 0..<2 { #expect(try await client.send(HTTPRequest(url: Self.url)).text == "body") }
        try await Wait.until("the background revalidation ended") { cache.backgroundRevalidations == 0 }
    }

    @Test(
        .covers(
            "SQLiteCacheStore.Configuration.maximumSize", "SQLiteCacheStore.Configuration.bodyFileThreshold",
            "SQLiteCacheStore.Configuration.maximumFileSize"),
        arguments: CallerNumbers.ints)
    func sqliteSizes(_ size: Int) async throws {
        let folder = try TemporaryDirectory(prefix: "sluice-caller-numbers")
        for (index, configuration) in [
            SQLiteCacheStore.Configuration(maximumSize: size), SQLiteCacheStore.Configuration(bodyFileThreshold: size),
            SQLiteCacheStore.Configuration(maximumFileSize: size),
        ].enumerated() {
            if let cap = configuration.maximumFileSize, cap < SQLiteCacheStore.Configuration.minimumFileSize {
                #expect {
                    try SQLiteCacheStore(path: folder.filePath("cache-\(index).sqlite"), configuration: configuration)
                } throws: {
                    ($0 as? SluiceError)?.code == .misconfigured && "\($0)".contains("maximumFileSize is \(cap) bytes")
                }
                continue
            }
            let store = try SQLiteCacheStore(path: folder.filePath("cache-\(index).sqlite"), configuration: configuration)
            let cache = CacheMiddleware(store: store)
            let transport = MockTransport { _, _ in .status(.ok, headers: ["Cache-Control": "max-age=60"], body: "body") }
            let client = Client(transport: transport, middlewares: [cache])
            for _ in 0..<2 { #expect(try await client.send(HTTPRequest(url: Self.url)).text == "body") }
        }
    }

    @Test(.covers("SQLiteCacheStore.Configuration.busyTimeout"), arguments: CallerNumbers.durations)
    func sqliteBusyTimeout(_ timeout: Duration) async throws {
        let folder = try TemporaryDirectory(prefix: "sluice-caller-numbers")
        let store = try SQLiteCacheStore(path: folder.filePath("cache.sqlite"), configuration: .init(busyTimeout: timeout))
        let entry = CachedResponse(
            method: "GET", url: Self.url.absoluteString, status: 200, headers: [:], body: Data("b".utf8), requestTime: .now, responseTime: .now)
        try await store.put(entry, for: "k")
        #expect(try await store.get("k")?.body == Data("b".utf8))
    }

    /// Records a store hands out or a caller's own store makes: any number compares and prints.
    @Test(
        .covers(
            "CacheItem.init(key:size:responseTime:) size", "CachedResponse.status", "CacheStrategy.Decision.serve(_:age:)",
            "CacheStrategy.Decision.serveStaleAndRevalidate(_:age:)"),
        arguments: CallerNumbers.ints)
    func records(_ number: Int) {
        let item = CacheItem(key: "k", size: number, responseTime: .now)
        #expect(item.size == number)
        var entry = CachedResponse(
            method: "GET", url: Self.url.absoluteString, status: number, headers: [:], body: Data(), requestTime: .now, responseTime: .now)
        entry.status = number
        #expect(entry.size > 0)
        #expect(CacheStrategy.Decision.serve(entry, age: number) != .serveStaleAndRevalidate(entry, age: number))
        let lifetime = CacheStrategy().freshnessLifetime(of: entry, ttl: number)
        #expect(lifetime >= 0)
        // The strategy decides on a stored entry with any status without trapping.
        _ = CacheStrategy().decide(HTTPRequest(url: Self.url), stored: entry, now: .now)
    }

    /// Directives parsed from a peer's numbers are held to 0...2^31; set by a caller, any value is
    /// kept and compared.
    @Test(
        .covers(
            "CacheControl.maxAge", "CacheControl.maxStale", "CacheControl.minFresh", "CacheControl.sharedMaxAge", "CacheControl.staleIfError",
            "CacheControl.staleWhileRevalidate"),
        arguments: CallerNumbers.ints)
    func directives(_ number: Int) {
        let parsed = CacheControl(
            "max-age=\(number), s-maxage=\(number), max-stale=\(number), min-fresh=\(number), stale-if-error=\(number), stale-while-revalidate=\(number), max-age=18446744073709551616"
        )
        for value in [parsed.maxAge, parsed.sharedMaxAge, parsed.minFresh, parsed.staleIfError, parsed.staleWhileRevalidate] {
            #expect(value.map { (0...CacheControl.maximumDeltaSeconds).contains($0) } ?? true)
        }
        var set = CacheControl()
        set.maxAge = number
        set.maxStale = .some(number)
        set.minFresh = number
        set.sharedMaxAge = number
        set.staleIfError = number
        set.staleWhileRevalidate = number
        #expect(!set.isEmpty)
        #expect(
            [set.maxAge, set.minFresh, set.sharedMaxAge, set.staleIfError, set.staleWhileRevalidate, set.maxStale ?? nil] == Array(repeating: number, count: 6))
    }

    /// Bounds a caller makes may be anything: resolved, they are inside the body or `nil`.
    /// (`ByteRange` is `package`: the kit does not require it, and the test stays.)
    @Test(arguments: CallerNumbers.ints)
    func byteRanges(_ number: Int) {
        for length in CallerNumbers.ints {
            for bounds in [
                ByteRange.Bounds(first: number, last: nil), ByteRange.Bounds(first: 0, last: number), ByteRange.Bounds(suffix: number),
                ByteRange.Bounds(first: number, last: number),
            ] {
                if let (first, last) = bounds.resolved(length: length) {
                    #expect(0 <= first && first <= last && last < length)
                }
            }
        }
    }
}
