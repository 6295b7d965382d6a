import Foundation
import Sluice
import SluiceCache
import SluiceCurl
import SluiceDownload
import SluiceTestSupport
import SluiceTesting
import Testing

/// A wall clock the test moves by hand.
final class TestClock: Sendable {
    private let now = Locked(Date(timeIntervalSince1970: 1_000_000))
    func read() -> Date { now.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { now.withLock { $0 += seconds } }
}

/// A count several tasks add to.
final class Counter: Sendable {
    private let value = Locked(0)
    func add() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

/// A memory store that counts every call made to it.
final class CountingStore: CacheStore {
    let inner = MemoryCacheStore()
    private let count = Locked(0)
    var calls: Int { count.withLock { $0 } }
    private func counted() { count.withLock { $0 += 1 } }
    func get(_ key: String) async throws -> CachedResponse? { counted(); return try await inner.get(key) }
    func put(_ entry: CachedResponse, for key: String) async throws { counted(); try await inner.put(entry, for: key) }
    func delete(_ key: String) async throws -> Bool { counted(); return try await inner.delete(key) }
    func delete(prefix: String) async throws -> Int { counted(); return try await inner.delete(prefix: prefix) }
    func clear() async throws { counted(); try await inner.clear() }
    func totalSize() async throws -> Int { counted(); return try await inner.totalSize() }
    func entryCount() async throws -> Int { counted(); return try await inner.entryCount() }
    func items() async throws -> [CacheItem] { counted(); return try await inner.items() }
}

/// A store whose every call fails, as a broken disk would.
struct FailingStore: CacheStore {
    struct Broken: Error {}
    func get(_ key: String) async throws -> CachedResponse? { throw Broken() }
    func put(_ entry: CachedResponse, for key: String) async throws { throw Broken() }
    func delete(_ key: String) async throws -> Bool { throw Broken() }
    func delete(prefix: String) async throws -> Int { throw Broken() }
    func clear() async throws { throw Broken() }
    func totalSize() async throws -> Int { throw Broken() }
    func entryCount() async throws -> Int { throw Broken() }
    func items() async throws -> [CacheItem] { throw Broken() }
}

@Suite("CacheMiddleware", .timeLimit(.minutes(3)))
struct CacheMiddlewareTests {
    let clock = TestClock()
    let store = MemoryCacheStore()
    let url = URL(string: "https://api.example.com/items?page=1")!

    func harness(_ replies: [MockTransport.Reply], _ change: (inout CacheMiddleware.Configuration) -> Void = { _ in }) -> MiddlewareHarness {
        var configuration = CacheMiddleware.Configuration(clock: { [clock] in clock.read() })
        change(&configuration)
        return MiddlewareHarness(CacheMiddleware(store: store, configuration: configuration), replies: replies)
    }

    func get(_ fields: [(String, String)] = [], policy: CachePolicy = .useProtocol, method: HTTPMethod = .get) -> HTTPRequest {
        var request = HTTPRequest(method: method, url: url)
        for (name, value) in fields { try! request.headers.append(name: name, value: value) }
        request.cachePolicy = policy
        return request
    }

    static func ok(_ body: String, _ fields: [(String, String)]) -> MockTransport.Reply {
        var headers = HTTPFields()
        for (name, value) in fields { try! headers.append(name: name, value: value) }
        return .status(.ok, headers: headers, body: body)
    }

    @Test func aFreshResponseIsServedFromTheCacheWithItsAge() async throws {
        let cache = harness([Self.ok("v1", [("Cache-Control", "max-age=60"), ("ETag", "\"1\"")])])
        let first = try await cache.send(get())
        #expect(first.source == .network && first.text == "v1")
        clock.advance(10)
        let second = try await cache.send(get())
        #expect(second.source == .cache)
        #expect(second.text == "v1")
        #expect(second.headers["Age"] == "10")
        #expect(second.headers["ETag"] == "\"1\"")
        #expect(cache.forwarded.count == 1)
        #expect(try await store.entryCount() == 1)
    }

    @Test func aStaleResponseIsRevalidatedAndA304ServesTheStoredBody() async throws {
        let cache = harness([
            Self.ok("v1", [("Cache-Control", "max-age=60"), ("ETag", "\"1\""), ("Last-Modified", "Mon, 12 Jan 1970 13:46:40 GMT")]),
            .status(304, headers: ["Cache-Control": "max-age=120", "X-Refreshed": "yes"]),
        ])
        _ = try await cache.send(get())
        clock.advance(61)
        let revalidated = try await cache.send(get())
        #expect(revalidated.source == .revalidated)
        #expect(revalidated.status.code == 200)
        #expect(revalidated.text == "v1")
        #expect(revalidated.headers["X-Refreshed"] == "yes")
        #expect(revalidated.headers["Age"] == "0")
        let conditional = cache.forwarded[1]
        #expect(conditional.headers["If-None-Match"] == "\"1\"")
        #expect(conditional.headers["If-Modified-Since"] == "Mon, 12 Jan 1970 13:46:40 GMT")
        // The 304's max-age=120 now governs the stored copy.
        clock.advance(100)
        let cached = try await cache.send(get())
        #expect(cached.source == .cache && cached.headers["Age"] == "100")
        #expect(cache.forwarded.count == 2)
    }

    /// Issue 27: a 304 that says no-store validates this call's copy and leaves nothing stored.
    @Test func a304WithNoStoreRemovesTheStoredEntry() async throws {
        let cache = harness([
            Self.ok("v1", [("Cache-Control", "max-age=60"), ("ETag", "\"1\"")]),
            .status(304, headers: ["Cache-Control": "no-store", "ETag": "\"1\""]),
            Self.ok("v2", [("Cache-Control", "max-age=60")]),
        ])
        _ = try await cache.send(get())
        clock.advance(61)
        let revalidated = try await cache.send(get())
        #expect(revalidated.source == .revalidated && revalidated.text == "v1")
        #expect(try await store.entryCount() == 0)
        let next = try await cache.send(get())
        #expect(next.source == .network && next.text == "v2")
        #expect(cache.forwarded.count == 3)
    }

    /// Issue 27: a 304 updates the stored fields RFC 9111 §3.2 lets it, never those that describe
    /// the stored body's bytes.
    @Test func a304NeverReplacesTheFieldsThatDescribeTheStoredBody() async throws {
        let cache = harness([
            Self.ok(#"{"a":1}"#, [("Cache-Control", "max-age=60"), ("ETag", "\"1\""), ("Content-Type", "application/json")]),
            .status(
                304,
                headers: [
                    "Cache-Control": "max-age=120", "ETag": "\"1\"", "Content-Type": "text/html", "Content-Encoding": "gzip",
                    "Content-Length": "5", "Content-Range": "bytes 0-4/5", "X-Refreshed": "yes",
                ]),
        ])
        _ = try await cache.send(get())
        clock.advance(61)
        _ = try await cache.send(get())
        let served = try await cache.send(get())
        #expect(served.source == .cache)
        #expect(served.text == #"{"a":1}"#)
        #expect(served.headers["Content-Type"] == "application/json")
        #expect(served.headers["Content-Encoding"] == nil)
        #expect(served.headers["Content-Range"] == nil)
        #expect(served.headers["Content-Length"] != "5")
        #expect(served.headers["X-Refreshed"] == "yes")
        #expect(served.headers["Cache-Control"] == "max-age=120")
    }

    /// Issue 27: an unsafe method invalidates its own origin's entries only: the same host on
    /// another port keeps its entry, even when the answer's `Location` names it.
    @Test func anUnsafeMethodInvalidatesOnlyItsOwnOrigin() async throws {
        let here = URL(string: "http://127.0.0.1:8080/items")!
        let there = URL(string: "http://127.0.0.1:9090/items")!
        var created = HTTPFields()
        try created.append(name: "Location", value: there.absoluteString)
        let cache = harness([
            Self.ok("here", [("Cache-Control", "max-age=60")]), Self.ok("there", [("Cache-Control", "max-age=60")]),
            .status(201, headers: created, body: ""),
        ])
        _ = try await cache.send(HTTPRequest(url: here))
        _ = try await cache.send(HTTPRequest(url: there))
        #expect(try await store.entryCount() == 2)
        _ = try await cache.send(HTTPRequest(method: .post, url: here))
        #expect(try await store.get("GET http://127.0.0.1:8080/items") == nil)
        #expect(try await store.get("GET http://127.0.0.1:9090/items")?.body == Data("there".utf8))
    }

    /// Issue 27: 20 stale URLs served at once start at most 4 background revalidations, and a
    /// revalidation the server never answers ends at its deadline (before, each one held a
    /// socket for as long as the server liked).
    @Test func backgroundRevalidationsAreCappedAndEndAtTheirDeadline() async throws {
        let server = try MockWebServer()
        let held = TestGate()
        server.setHandler { request in
            if request.header("If-None-Match") != nil { _ = held.wait(timeout: .seconds(20)) }
            return .init(status: 200, headers: [("Cache-Control", "max-age=60, stale-while-revalidate=600"), ("ETag", "\"1\"")], body: "v1")
        }
        var configuration = CacheMiddleware.Configuration(clock: { [clock] in clock.read() })
        let timeout = TestTiming.scaled(.seconds(3))
        configuration.backgroundRevalidationTimeout = timeout
        let cache = CacheMiddleware(store: store, configuration: configuration)
        let client = Client(transport: CurlTransport(), middlewares: [cache])
        let urls = (0..<20).map { server.url("/item-\($0)") }
        for url in urls { _ = try await client.send(HTTPRequest(url: url)) }
        clock.advance(61)
        let started = ContinuousClock.now
        for url in urls {
            let stale = try await client.send(HTTPRequest(url: url))
            #expect(stale.source == .cache)
            #expect(cache.backgroundRevalidations <= 4)
        }
        let served = started.duration(to: .now)
        let revalidations = { server.requests.count - urls.count }
        try await Wait.until("four revalidations reached the server") { revalidations() >= 4 }
        // Each ends at its deadline although the server never answers.
        try await Wait.until("the revalidations gave up", timeout: TestTiming.scaled(.seconds(10))) { cache.backgroundRevalidations == 0 }
        if served < timeout {
            // All 20 were served while the first four were still held, so no fifth could start.
            #expect(revalidations() == 4)
        } else {
            // A machine slow enough that the first four reached their deadline mid-loop: later
            // stale answers may start new ones, never more than one per stale answer.
            #expect(revalidations() <= urls.count)
        }
        held.open()
    }

    /// Issue 30: a background revalidation is the cache's: when its client goes away, the
    /// revalidation is cancelled and its transfer ends, though neither its deadline nor the
    /// server has ended it (before, a task nobody owned held the socket until its deadline).
    @Test func backgroundRevalidationsAreCancelledWhenTheirClientGoesAway() async throws {
        let server = try MockWebServer()
        server.setHandler { request in
            let fields = [("Cache-Control", "max-age=60, stale-while-revalidate=600"), ("ETag", "\"2\"")]
            guard request.header("If-None-Match") != nil else { return .init(status: 200, headers: fields, body: "v1") }
            // The revalidation's answer takes 300 s: a byte a second.
            return MockWebServer.Response(status: 200, headers: fields, body: String(repeating: "v", count: 300))
                .with(throttle: 1, every: .seconds(1))
        }
        // The transport outlives the client, so only a cancelled transfer closes its connection.
        let transport = CurlTransport()
        do {
            var configuration = CacheMiddleware.Configuration(clock: { [clock] in clock.read() })
            configuration.backgroundRevalidationTimeout = .seconds(300)
            let cache = CacheMiddleware(store: store, configuration: configuration)
            let client = Client(transport: transport, middlewares: [cache])
            _ = try await client.send(HTTPRequest(url: server.url("/item")))
            clock.advance(61)
            #expect(try await client.send(HTTPRequest(url: server.url("/item"))).source == .cache)
            try await Wait.until("the revalidation reached the server") { server.requests.count == 2 }
            #expect(cache.backgroundRevalidations == 1)
            #expect(server.connectionsClosedByClient == 0)
        }
        try await Wait.until("the revalidation's connection was closed", timeout: TestTiming.scaled(.seconds(30))) {
            server.connectionsClosedByClient == 1
        }
        withExtendedLifetime(transport) {}
    }

    @Test func a200ToAValidationReplacesTheStoredCopy() async throws {
        let cache = harness([
            Self.ok("v1", [("Cache-Control", "max-age=60"), ("ETag", "\"1\"")]),
            Self.ok("v2", [("Cache-Control", "max-age=60"), ("ETag", "\"2\"")]),
        ])
        _ = try await cache.send(get())
        clock.advance(61)
        let fresh = try await cache.send(get())
        #expect(fresh.source == .network && fresh.text == "v2")
        let cached = try await cache.send(get())
        #expect(cached.source == .cache && cached.text == "v2")
    }

    @Test func fieldsAQualifiedNoCacheNamesAreNotServedFromTheCache() async throws {
        let cache = harness([Self.ok("v1", [("Cache-Control", #"max-age=60, no-cache="Set-Cookie""#), ("Set-Cookie", "id=1"), ("X-Kept", "1")])])
        #expect(try await cache.send(get()).headers["Set-Cookie"] == "id=1")
        let cached = try await cache.send(get())
        #expect(cached.source == .cache)
        #expect(cached.headers["Set-Cookie"] == nil && cached.headers["X-Kept"] == "1")
    }

    @Test func noStoreResponsesAndRequestsAreNotStored() async throws {
        let cache = harness([
            Self.ok("a", [("Cache-Control", "no-store, max-age=60")]),
            Self.ok("b", [("Cache-Control", "max-age=60")]),
            Self.ok("c", [("Cache-Control", "max-age=60")]),
        ])
        _ = try await cache.send(get())
        _ = try await cache.send(get([("Cache-Control", "no-store")]))
        #expect(try await store.entryCount() == 0)
        #expect(try await cache.send(get()).text == "c")
        #expect(cache.forwarded.count == 3)
    }

    @Test func aSuccessfulUnsafeRequestInvalidatesItsURLAndLocations() async throws {
        let other = URL(string: "https://api.example.com/items/7")!
        let cache = harness([
            Self.ok("list", [("Cache-Control", "max-age=600")]),
            Self.ok("item", [("Cache-Control", "max-age=600")]),
            .status(201, headers: ["Location": "/items/7", "Content-Location": "https://elsewhere.example/x"]),
        ])
        _ = try await cache.send(get())
        _ = try await cache.send(HTTPRequest(url: other))
        #expect(try await store.entryCount() == 2)
        _ = try await cache.send(HTTPRequest(method: .post, url: url, body: .bytes(Data("{}".utf8))))
        #expect(try await store.entryCount() == 0)
    }

    @Test func aFailedUnsafeRequestInvalidatesNothing() async throws {
        let cache = harness([Self.ok("list", [("Cache-Control", "max-age=600")]), .status(500)])
        _ = try await cache.send(get())
        _ = try await cache.send(HTTPRequest(method: .delete, url: url))
        #expect(try await store.entryCount() == 1)
    }

    @Test func headIsAnsweredFromAStoredGet() async throws {
        let cache = harness([Self.ok("body", [("Cache-Control", "max-age=60")])])
        _ = try await cache.send(get())
        let head = try await cache.send(get(method: .head))
        #expect(head.source == .cache && head.body.isEmpty && head.status.code == 200)
        #expect(cache.forwarded.count == 1)
    }

    @Test func reloadIgnoringCacheFetchesAndStores() async throws {
        let cache = harness([Self.ok("v1", [("Cache-Control", "max-age=60")]), Self.ok("v2", [("Cache-Control", "max-age=60")])])
        _ = try await cache.send(get())
        let reloaded = try await cache.send(get(policy: .reloadIgnoringCache))
        #expect(reloaded.source == .network && reloaded.text == "v2")
        #expect(try await cache.send(get()).text == "v2")
    }

    /// A reload with `no-store` (issue 29 answers it before any key is made): the store is
    /// neither read nor written, the stored copy stays, and the answer is the network's.
    @Test func aReloadThatMayStoreNothingNeverTouchesTheStore() async throws {
        let counting = CountingStore()
        let cache = MiddlewareHarness(
            CacheMiddleware(store: counting, configuration: .init(clock: { [clock] in clock.read() })),
            replies: [Self.ok("v1", [("Cache-Control", "max-age=60")]), Self.ok("v2", [("Cache-Control", "max-age=60")])])
        _ = try await cache.send(get())
        let before = counting.calls
        let reloaded = try await cache.send(get([("Cache-Control", "no-store")], policy: .reloadIgnoringCache))
        #expect(reloaded.source == .network && reloaded.text == "v2")
        #expect(counting.calls == before, "the store was used: \(counting.calls) calls, \(before) before")
        #expect(try await cache.send(get()).text == "v1")
        #expect(cache.forwarded.count == 2)
    }

    @Test func returnCacheDontLoadServesAnyCopyOrFailsWithAMiss() async throws {
        let cache = harness([Self.ok("v1", [("Cache-Control", "max-age=1")])])
        await #expect {
            _ = try await cache.send(get(policy: .returnCacheDontLoad))
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .cacheMiss
                && error?.message == "nothing is stored for GET https://api.example.com/items?page=1 (cache policy returnCacheDontLoad)"
        }
        #expect(cache.forwarded.isEmpty)
        _ = try await cache.send(get())
        clock.advance(1_000)
        let stale = try await cache.send(get(policy: .returnCacheDontLoad))
        #expect(stale.source == .cache && stale.text == "v1" && stale.headers["Age"] == "1000")
        let elseLoad = try await cache.send(get(policy: .returnCacheElseLoad))
        #expect(elseLoad.source == .cache)
        #expect(cache.forwarded.count == 1)
    }

    @Test func offlineFallbackServesAStaleCopyWhenTheNetworkFails() async throws {
        let down = SluiceError(.offline, "no route")
        let cache = harness([Self.ok("v1", [("Cache-Control", "max-age=1"), ("ETag", "\"1\"")]), .error(down), .error(down)])
        _ = try await cache.send(get())
        clock.advance(100)
        let fallback = try await cache.send(get(policy: .offlineFallback))
        #expect(fallback.source == .cache && fallback.text == "v1" && fallback.headers["Age"] == "100")
        await #expect { _ = try await cache.send(get()) } throws: { ($0 as? SluiceError)?.code == .offline }
    }

    /// Issue 41, item 8: a client-wide default policy serves offline reads without a word on each
    /// request; a request's own policy still wins.
    @Test func theDefaultPolicyServesOfflineReadsForRequestsThatSetNone() async throws {
        let down = SluiceError(.offline, "no route")
        let cache = harness([Self.ok("v1", [("Cache-Control", "max-age=1"), ("ETag", "\"1\"")]), .error(down), .error(down)]) {
            $0.defaultPolicy = .offlineFallback
        }
        let plain = HTTPRequest(url: url)  // no policy of its own
        _ = try await cache.send(plain)
        clock.advance(100)
        let fallback = try await cache.send(plain)
        #expect(fallback.source == .cache && fallback.text == "v1" && fallback.headers["Age"] == "100")
        // Its own .useProtocol: the failure is the caller's.
        await #expect { _ = try await cache.send(get(policy: .useProtocol)) } throws: { ($0 as? SluiceError)?.code == .offline }
        #expect(CacheMiddleware.Configuration.default.defaultPolicy == .useProtocol)
    }

    @Test func cancellationIsNeverCoveredByAStaleCopy() async throws {
        let cache = harness([Self.ok("v1", [("Cache-Control", "max-age=1"), ("ETag", "\"1\"")]), .error(CancellationError())])
        _ = try await cache.send(get())
        clock.advance(100)
        await #expect(throws: CancellationError.self) { _ = try await cache.send(get(policy: .offlineFallback)) }
    }

    @Test func staleIfErrorCoversServerErrorsInsideItsWindow() async throws {
        let cache = harness([
            Self.ok("v1", [("Cache-Control", "max-age=10, stale-if-error=60"), ("ETag", "\"1\"")]),
            .status(503), .status(503),
        ])
        _ = try await cache.send(get())
        clock.advance(30)
        let covered = try await cache.send(get())
        #expect(covered.source == .cache && covered.text == "v1")
        clock.advance(100)
        let exposed = try await cache.send(get())
        #expect(exposed.status.code == 503 && exposed.source == .network)
    }

    @Test func aReloadNeverFallsBackOnTheStoredCopy() async throws {
        let cache = harness([
            Self.ok("v1", [("Cache-Control", "max-age=10, stale-if-error=60"), ("ETag", "\"1\"")]),
            .status(503), .status(503),
        ])
        _ = try await cache.send(get())
        clock.advance(30)
        // Inside the stale-if-error window: the stored copy covers a 503, but not for a reload.
        let reload = try await cache.send(get(policy: .reloadIgnoringCache))
        #expect(reload.status.code == 503 && reload.source == .network)
        #expect(cache.forwarded.count == 2 && cache.forwarded[1].headers["If-None-Match"] == nil)  // not a revalidation either
        #expect(try await cache.send(get()).text == "v1")
    }

    @Test func onlyIfCachedAnswers504WithoutTheNetwork() async throws {
        let cache = harness([])
        let response = try await cache.send(get([("Cache-Control", "only-if-cached")]))
        #expect(response.status.code == 504 && response.source == .cache)
        #expect(cache.forwarded.isEmpty)
    }

    @Test func aRequestTTLKeepsACopyFreshWhateverTheHeaders() async throws {
        let cache = harness([Self.ok("v1", [("Cache-Control", "max-age=0")]), Self.ok("v2", [])])
        var request = get()
        request.cacheTTL = 300
        _ = try await cache.send(request)
        clock.advance(299)
        #expect(try await cache.send(request).source == .cache)
        clock.advance(2)
        #expect(try await cache.send(request).text == "v2")
    }

    @Test func ignoredQueryItemsAreLeftOutOfTheKey() async throws {
        let cache = harness([Self.ok("v1", [("Cache-Control", "max-age=60")])]) { $0.ignoredQueryItems = ["ts", "nonce"] }
        _ = try await cache.send(HTTPRequest(url: URL(string: "https://api.example.com/items?page=1&ts=1&nonce=a")!))
        let again = try await cache.send(HTTPRequest(url: URL(string: "https://api.example.com/items?ts=2&page=1&nonce=b")!))
        #expect(again.source == .cache, "the same key whatever the ignored items and their order")
        let same = try await cache.send(HTTPRequest(url: URL(string: "https://api.example.com/items?page=1&ts=9")!))
        #expect(same.source == .cache)
        let middleware = CacheMiddleware(store: store, configuration: .init(ignoredQueryItems: ["ts"]))
        #expect(middleware.key(for: HTTPRequest(url: URL(string: "https://a.example/x?ts=1&b=2#frag")!)) == "GET https://a.example/x?b=2")
        #expect(middleware.key(for: HTTPRequest(url: URL(string: "https://a.example/x?ts=1")!)) == "GET https://a.example/x")
    }

    @Test func aBrokenStoreIsACacheMissNotAFailure() async throws {
        let configuration = CacheMiddleware.Configuration(clock: { [clock] in clock.read() })
        let cache = MiddlewareHarness(
            CacheMiddleware(store: FailingStore(), configuration: configuration),
            replies: [Self.ok("v1", [("Cache-Control", "max-age=60")]), Self.ok("v2", [("Cache-Control", "max-age=60")]), .status(204)]
        )
        #expect(try await cache.send(get()).text == "v1")
        #expect(try await cache.send(get()).text == "v2")
        #expect(try await cache.send(HTTPRequest(method: .delete, url: url)).status.code == 204)
    }

    @Test func staleWhileRevalidateAnswersAtOnceAndRevalidatesOnce() async throws {
        let revalidated = Locked(0)
        let transport = MockTransport { request, _ in
            if request.headers.contains("If-None-Match") {
                revalidated.withLock { $0 += 1 }
                try await Task.sleep(for: .milliseconds(100))
                return .status(304, headers: ["Cache-Control": "max-age=60, stale-while-revalidate=30"])
            }
            return Self.ok("v1", [("Cache-Control", "max-age=60, stale-while-revalidate=30"), ("ETag", "\"1\"")])
        }
        let configuration = CacheMiddleware.Configuration(clock: { [clock] in clock.read() })
        let cache = MiddlewareHarness(CacheMiddleware(store: store, configuration: configuration), transport: transport)
        _ = try await cache.send(get())
        clock.advance(70)
        let first = try await cache.send(get())
        let second = try await cache.send(get())
        #expect(first.source == .cache && first.headers["Age"] == "70")
        #expect(second.source == .cache)
        // The background revalidation runs once, then the entry is fresh again.
        try await Wait.until("the background revalidation ran") { revalidated.withLock({ $0 }) > 0 && transport.requests.count >= 2 }
        try await Task.sleep(for: .milliseconds(200))
        #expect(revalidated.withLock { $0 } == 1)
        let after = try await cache.send(get())
        #expect(after.source == .cache && after.headers["Age"] == "0")
    }

    // MARK: Coalescing

    /// A transport whose first fetch takes `first` (cancellable) and later ones 300 ms.
    func slowTransport(_ counter: Counter, cancelled: Counter? = nil, first: Duration = .milliseconds(300)) -> MockTransport {
        MockTransport { request, _ in
            counter.add()
            do {
                try await Task.sleep(for: counter.count == 1 ? first : .milliseconds(300))
            } catch {
                cancelled?.add()
                throw error
            }
            return Self.ok("shared", [("Cache-Control", "max-age=60")])
        }
    }

    @Test func identicalConcurrentGetsShareOneFetch() async throws {
        let fetches = Counter()
        let cache = MiddlewareHarness(CacheMiddleware(store: store), transport: slowTransport(fetches))
        let bodies = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<10 { group.addTask { try await cache.send(get()).text } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(bodies == Array(repeating: "shared", count: 10))
        #expect(fetches.count == 1)
    }

    @Test func reloadsAreEachTheirOwnFetch() async throws {
        let fetches = Counter()
        let cache = MiddlewareHarness(CacheMiddleware(store: store), transport: slowTransport(fetches))
        var reload = get()
        reload.cachePolicy = .reloadIgnoringCache
        let bodies = try await withThrowingTaskGroup(of: String?.self) { [reload] group in
            for _ in 0..<4 { group.addTask { try await cache.send(reload).text } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(bodies == Array(repeating: "shared", count: 4))
        #expect(fetches.count == 4)
    }

    @Test func requestsWithOtherFieldsAreNotCoalesced() async throws {
        let fetches = Counter()
        let cache = MiddlewareHarness(CacheMiddleware(store: store), transport: slowTransport(fetches))
        async let a = cache.send(get([("Accept", "text/plain")]))
        async let b = cache.send(get([("Accept", "application/json")]))
        _ = try await (a, b)
        #expect(fetches.count == 2)
    }

    @Test func aCancelledFollowerLeavesTheLeaderItsResponse() async throws {
        let fetches = Counter(), cancelled = Counter()
        // The leader's fetch is long enough for the follower to join even on a loaded machine.
        let middleware = CacheMiddleware(store: store)
        let cache = MiddlewareHarness(middleware, transport: slowTransport(fetches, cancelled: cancelled, first: .seconds(2)))
        let leader = Task { try await cache.send(get()) }
        try await Wait.until("the leader is fetching") { fetches.count == 1 }
        let follower = Task { try await cache.send(get()) }
        try await Wait.until("the follower joined the leader's fetch") { middleware.coalescedWaiters == 1 }
        follower.cancel()
        await #expect(throws: CancellationError.self) { _ = try await follower.value }
        #expect(try await leader.value.text == "shared")
        #expect(fetches.count == 1 && cancelled.count == 0)
    }

    @Test func whenTheLeaderIsCancelledAFollowerFetchesAgain() async throws {
        let fetches = Counter(), cancelled = Counter()
        // The leader's fetch would take a minute: only its cancellation ends it.
        let middleware = CacheMiddleware(store: store)
        let cache = MiddlewareHarness(middleware, transport: slowTransport(fetches, cancelled: cancelled, first: .seconds(60)))
        let leader = Task { try await cache.send(get()) }
        try await Wait.until("the leader is fetching") { fetches.count == 1 }
        let follower = Task { try await cache.send(get()) }
        try await Wait.until("the follower joined the leader's fetch") { middleware.coalescedWaiters == 1 }
        leader.cancel()
        await #expect(throws: CancellationError.self) { _ = try await leader.value }
        #expect(try await follower.value.text == "shared")
        #expect(fetches.count == 2 && cancelled.count == 1)
    }

    @Test func theSharedFetchStopsWhenEveryWaiterIsCancelled() async throws {
        let fetches = Counter(), cancelled = Counter()
        let middleware = CacheMiddleware(store: store)
        let cache = MiddlewareHarness(middleware, transport: slowTransport(fetches, cancelled: cancelled, first: .seconds(60)))
        let first = Task { try await cache.send(get()) }
        let second = Task { try await cache.send(get()) }
        try await Wait.until("one fetches and the other waits for it") { fetches.count == 1 && middleware.coalescedWaiters == 1 }
        first.cancel()
        second.cancel()
        await #expect(throws: CancellationError.self) { _ = try await first.value }
        await #expect(throws: CancellationError.self) { _ = try await second.value }
        // Every fetch that started was stopped (one, unless the waiter saw the leader's
        // cancellation before its own and led a second fetch, which its cancellation stopped too).
        try await Wait.until("the shared fetch stopped") { cancelled.count >= 1 && cancelled.count == fetches.count }
    }
}

@Suite("CacheMiddleware, POST caching")
struct CachePOSTTests {
    let store = MemoryCacheStore()
    let url = URL(string: "https://api.example.com/search")!

    func post(_ body: String, caches: Bool = true) -> HTTPRequest {
        var request = HTTPRequest(method: .post, url: url, body: .bytes(Data(body.utf8)))
        request.cachesPOST = caches
        return request
    }

    @Test func anOptedInPOSTIsKeyedByItsBody() async throws {
        let cache = MiddlewareHarness(
            CacheMiddleware(store: store),
            replies: [
                .status(.ok, headers: ["Cache-Control": "max-age=60"], body: "results for a"),
                .status(.ok, headers: ["Cache-Control": "max-age=60"], body: "results for b"),
            ])
        #expect(try await cache.send(post(#"{"q":"a"}"#)).source == .network)
        #expect(try await cache.send(post(#"{"q":"b"}"#)).text == "results for b")
        let again = try await cache.send(post(#"{"q":"a"}"#))
        #expect(again.source == .cache && again.text == "results for a")
        #expect(cache.forwarded.count == 2)
        let key = CacheMiddleware(store: store).key(for: post(#"{"q":"a"}"#))
        // SHA-256 of {"q":"a"}, as `printf '{"q":"a"}' | sha256sum` gives it.
        #expect(key == "POST https://api.example.com/search 29a9829b3c03948275ca3be1cb7b633c0207849d2c0bd3215060f2ac05abce64")
    }

    @Test func secretsInTheURLAndVaryFieldsNeverReachTheStore() async throws {
        let folder = try TemporaryDirectory(prefix: "sluice-cache-secrets")
        let sqlite = try SQLiteCacheStore(path: folder.filePath("cache.sqlite"))
        let reply = { (body: String) in
            MockTransport.Reply.status(.ok, headers: ["Cache-Control": "max-age=60", "Vary": "Authorization"], body: body)
        }
        let cache = MiddlewareHarness(CacheMiddleware(store: sqlite), replies: [reply("for token one"), reply("for token two")])
        func request(_ token: String) -> HTTPRequest {
            HTTPRequest(
                url: URL(string: "https://ann:hunter2@api.example.com/feed?page=2&token=\(token)&Signature=abc%2Bdef")!,
                headers: ["Authorization": "Bearer bearer-\(token)"])
        }
        #expect(try await cache.send(request("tok-1111")).source == .network)
        #expect(try await cache.send(request("tok-2222")).text == "for token two")  // another token, another entry
        let hit = try await cache.send(request("tok-1111"))
        #expect(hit.source == .cache && hit.text == "for token one")

        let key = CacheMiddleware(store: sqlite).key(for: request("tok-1111"))
        // The fingerprints are the first 32 hex digits of `printf '<secret>' | sha256sum`.
        #expect(
            key == "GET https://ann:sha256:f52fbd32b2b3b86ff88ef6c490628285@api.example.com/feed?page=2"
                + "&token=sha256:47871f6440bf14c001cc6a24137056c2&Signature=sha256:5cafcdc0243d59e8f1dd60315840efe3")
        #expect(try await sqlite.items().map(\.key).sorted() == [key, CacheMiddleware(store: sqlite).key(for: request("tok-2222"))].sorted())
        // Not in the database or its write-ahead log, in any form.
        var bytes = Data()
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasPrefix("cache.sqlite") {
            bytes += (try? Data(contentsOf: folder.fileURL(name))) ?? Data()
        }
        #expect(bytes.count > 4_096)
        for secret in ["tok-1111", "tok-2222", "hunter2", "bearer-tok", "abc%2Bdef", "abc+def"] {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is in the cache files")
        }
    }

    @Test func aPOSTThatDidNotOptInIsNeverCachedAndInvalidates() async throws {
        let cache = MiddlewareHarness(
            CacheMiddleware(store: store),
            replies: [
                .status(.ok, headers: ["Cache-Control": "max-age=60"], body: "1"),
                .status(.ok, headers: ["Cache-Control": "max-age=60"], body: "2"),
            ])
        _ = try await cache.send(post("x", caches: false))
        #expect(try await cache.send(post("x", caches: false)).text == "2")
        #expect(try await store.entryCount() == 0)
    }
}

@Suite("CacheMiddleware: what one user's request may share with another's")
struct CacheSharingTests {
    let url = URL(string: "https://api.example.com/feed")!

    static func ok(_ body: String, _ fields: [(String, String)]) throws -> MockTransport.Reply {
        var headers = HTTPFields()
        for (name, value) in fields { try headers.append(name: name, value: value) }
        return .status(.ok, headers: headers, body: body)
    }

    @Test func aSharedCacheNeverStoresSetCookieOnAnyStore() async throws {
        let folder = try TemporaryDirectory(prefix: "sluice-cache")
        let stores: [any CacheStore] = [MemoryCacheStore(), try SQLiteCacheStore(path: folder.filePath("shared.sqlite"))]
        for store in stores {
            let reply = try Self.ok(
                "feed", [("Cache-Control", "public, max-age=60"), ("Set-Cookie", "session=user-a"), ("Set-Cookie2", "old=user-a"), ("ETag", "\"1\"")])
            let middleware = CacheMiddleware(store: store, configuration: .init(isShared: true))
            let cache = MiddlewareHarness(middleware, replies: [reply])
            let first = try await cache.send(HTTPRequest(url: url))
            #expect(first.source == .network && first.headers["Set-Cookie"] == "session=user-a", "\(type(of: store))")
            let second = try await cache.send(HTTPRequest(url: url))
            #expect(second.source == .cache && second.text == "feed", "\(type(of: store))")
            #expect(second.headers["Set-Cookie"] == nil && second.headers["Set-Cookie2"] == nil, "\(type(of: store))")
            #expect(second.headers["ETag"] == "\"1\"")
            let stored = try #require(try await store.get(middleware.key(for: HTTPRequest(url: url))))
            #expect(!stored.headers.contains("Set-Cookie") && !stored.headers.contains("Set-Cookie2"), "\(type(of: store))")
        }
    }

    @Test func aPrivateCacheNeverStoresSetCookieOrOtherCredentialFieldsEither() async throws {
        let store = MemoryCacheStore()
        let fields = [("Cache-Control", "max-age=60"), ("Set-Cookie", "session=me"), ("Set-Cookie2", "old=1"), ("X-Api-Key", "k"), ("ETag", "\"v1\"")]
        let cache = MiddlewareHarness(CacheMiddleware(store: store), replies: [try Self.ok("feed", fields)])
        let first = try await cache.send(HTTPRequest(url: url))
        #expect(first.headers["Set-Cookie"] == "session=me")  // the network response is untouched
        let hit = try await cache.send(HTTPRequest(url: url))
        #expect(hit.source == .cache)
        #expect(hit.headers.map(\.name).filter { $0 != "Age" } == ["Cache-Control", "ETag"])
    }

    @Test func anAnswerThatEchoesASecretOfTheRequestIsPassedOnButNotStored() async throws {
        let token = "tok-0123456789abcdef"
        var request = HTTPRequest(url: url)
        try request.headers.set(name: "Authorization", value: "Bearer \(token)")
        try request.headers.set(name: "Cookie", value: "consent=true")
        let cases: [(fields: [(String, String)], body: String, stored: Bool)] = [
            ([("Cache-Control", "max-age=60")], #"{"you":"Bearer \#(token)"}"#, false),  // in the body
            ([("Cache-Control", "max-age=60"), ("X-Echo", token)], "{}", false),  // in a field of another name
            ([("Cache-Control", "max-age=60")], #"{"seen":"tok-0123456789ABCDEF"}"#, true),  // another value
            // A short value (the cookie's `true`) is not looked for: it is in half the JSON bodies.
            ([("Cache-Control", "max-age=60")], #"{"active":true}"#, true),
        ]
        for (fields, body, stored) in cases {
            let store = MemoryCacheStore()
            let cache = MiddlewareHarness(CacheMiddleware(store: store), replies: [try Self.ok(body, fields), try Self.ok("again", fields)])
            let first = try await cache.send(request)
            #expect(first.body == Data(body.utf8))  // the caller gets it whole
            #expect(try await store.entryCount() == (stored ? 1 : 0), "\(body)")
            let second = try await cache.send(request)
            #expect((second.source == .cache) == stored, "\(body)")
        }
    }

    @Test func aCallerSetHostThatDiffersFromTheURLsIsPartOfTheKey() throws {
        let middleware = CacheMiddleware(store: MemoryCacheStore())
        var tenantA = HTTPRequest(url: url)
        try tenantA.headers.set(name: "Host", value: "tenant-a.example.com")
        var tenantB = HTTPRequest(url: url)
        try tenantB.headers.set(name: "Host", value: "Tenant-B.example.com")
        var same = HTTPRequest(url: url)
        try same.headers.set(name: "Host", value: "API.example.com")
        #expect(middleware.key(for: tenantA) == "GET https://api.example.com/feed host=tenant-a.example.com")
        #expect(middleware.key(for: tenantB) == "GET https://api.example.com/feed host=tenant-b.example.com")
        #expect(middleware.key(for: same) == "GET https://api.example.com/feed")
        var withPort = HTTPRequest(url: URL(string: "http://127.0.0.1:8080/feed")!)
        try withPort.headers.set(name: "Host", value: "127.0.0.1:8080")
        #expect(middleware.key(for: withPort) == "GET http://127.0.0.1:8080/feed")
        try withPort.headers.set(name: "Host", value: "127.0.0.1")
        #expect(middleware.key(for: withPort) == "GET http://127.0.0.1:8080/feed host=127.0.0.1")
    }

    @Test func twoHostsBehindOneAddressGetTheirOwnAnswers() async throws {
        let cache = MiddlewareHarness(CacheMiddleware(store: MemoryCacheStore())) { request, _ in
            .status(.ok, headers: ["Cache-Control": "max-age=60"], body: "for \(request.headers["Host"] ?? "?")")
        }
        for host in ["a.example", "b.example", "a.example"] {
            var request = HTTPRequest(url: url)
            try request.headers.set(name: "Host", value: host)
            #expect(try await cache.send(request).text == "for \(host)")
        }
        #expect(cache.forwarded.count == 2)
    }
}

@Suite("CacheMiddleware: bodies asked for in a file")
struct CacheToFileTests {
    @Test func aHitForARequestThatWantsAFileWritesTheStoredBodyThere() async throws {
        let folder = try TemporaryDirectory(prefix: "sluice-cache")
        let url = URL(string: "https://api.example.com/report.csv")!
        let cache = MiddlewareHarness(
            CacheMiddleware(store: MemoryCacheStore()),
            replies: [.status(.ok, headers: ["Cache-Control": "max-age=60", "Content-Type": "text/csv"], body: "a,b\n1,2\n")])
        _ = try await cache.send(HTTPRequest(url: url))
        var request = HTTPRequest(url: url)
        request.responseBodyFile = folder.url.appendingPathComponent("report.csv")
        let response = try await cache.send(request)
        #expect(response.source == .cache)
        #expect(response.bodyFile == request.responseBodyFile)
        #expect(response.body.isEmpty)
        #expect(try String(contentsOf: folder.url.appendingPathComponent("report.csv"), encoding: .utf8) == "a,b\n1,2\n")
        #expect(try FileManager.default.attributesOfItem(atPath: folder.filePath("report.csv"))[.posixPermissions] as? Int == 0o600)
        #expect(cache.forwarded.count == 1)
    }

    @Test func aDownloadThroughACachingClientGetsTheCachedFile() async throws {
        let server = try MockWebServer()
        let data = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        server.enqueue(.init(status: 200, headers: [("Cache-Control", "max-age=60"), ("ETag", "\"d1\"")], body: data))
        let client = Client(transport: CurlTransport(), middlewares: [CacheMiddleware(store: MemoryCacheStore())])
        #expect(try await client.send(HTTPRequest(url: server.url("/file.bin"))).body == data)
        let folder = try TemporaryDirectory(prefix: "sluice-cache")
        let destination = folder.url.appendingPathComponent("file.bin")
        let result = try await client.download(HTTPRequest(url: server.url("/file.bin")), to: destination)
        #expect(result.bytes == Int64(data.count))
        #expect(result.response.source == .cache)
        #expect(try Data(contentsOf: destination) == data)
        #expect(server.requests.count == 1)  // the download was answered from the cache
    }

    @Test func eachRedirectHopIsStoredOnlyUnderTheURLThatAnsweredIt() async throws {
        let server = try MockWebServer()
        server.setHandler { request in
            switch request.target {
            case "/start": .init(status: 302, headers: [("Location", "/target"), ("Cache-Control", "no-store")], body: "")
            case "/moved": .init(status: 301, headers: [("Location", "/target"), ("Cache-Control", "max-age=3600")], body: "")
            default: .init(status: 200, headers: [("Cache-Control", "max-age=3600")], body: "target")
            }
        }
        let store = MemoryCacheStore()
        var builder = Client.Builder(transport: CurlTransport())
        builder.add(CacheMiddleware(store: store))
        let client = builder.build()
        for _ in 0..<2 { #expect(try await client.send(HTTPRequest(url: server.url("/start"))).text == "target") }
        // The no-store 302 went to the server both times; its target was fetched once and then
        // answered from the cache under its own URL.
        #expect(server.requests.map(\.target) == ["/start", "/target", "/start"])
        let direct = try await client.send(HTTPRequest(url: server.url("/target")))
        #expect(direct.source == .cache)
        #expect(try await store.entryCount() == 1)
        // A cacheable 301 is stored as the 301, so the next call replays the redirect from the
        // cache and lands on the stored target without the network.
        _ = try await client.send(HTTPRequest(url: server.url("/moved")))
        let again = try await client.send(HTTPRequest(url: server.url("/moved")))
        #expect(again.text == "target")
        #expect(again.url == server.url("/target"))
        #expect(server.requests.map(\.target) == ["/start", "/target", "/start", "/moved"])
        #expect(try await store.entryCount() == 2)
    }

    @Test func varyCookieIsMatchedAgainstTheCookiesTheJarReallySends() async throws {
        let server = try MockWebServer()
        server.setHandler { request in
            if request.target.hasPrefix("/login?user=") {
                let user = request.target.dropFirst("/login?user=".count)
                return .init(status: 200, headers: [("Set-Cookie", "session=\(user); Path=/; HttpOnly")], body: "hello \(user)")
            }
            // Whose page, by the session's user: an answer that echoed the Cookie itself would not
            // be stored (no store file holds a secret the request carried).
            let user = request.header("Cookie").map { $0.replacingOccurrences(of: "session=", with: "") } ?? "none"
            return .init(status: 200, headers: [("Cache-Control", "private, max-age=3600"), ("Vary", "Cookie")], body: "page for \(user)")
        }
        var configuration = CurlTransport.Configuration()
        configuration.cookieJar = .memory
        let store = MemoryCacheStore()
        var builder = Client.Builder(transport: CurlTransport(configuration: configuration))
        builder.add(CacheMiddleware(store: store))
        let client = builder.build()
        _ = try await client.send(HTTPRequest(url: server.url("/login?user=ann")))
        #expect(try await client.send(HTTPRequest(url: server.url("/private"))).text == "page for ann")
        let again = try await client.send(HTTPRequest(url: server.url("/private")))
        #expect(again.source == .cache)  // the same cookie: a hit
        // Bob signs in on the same client: the jar now sends his cookie, so Ann's page must not be
        // served to him.
        _ = try await client.send(HTTPRequest(url: server.url("/login?user=bob")))
        let bobs = try await client.send(HTTPRequest(url: server.url("/private")))
        #expect(bobs.text == "page for bob")
        #expect(bobs.source == .network)
        #expect(server.requests.filter { $0.target == "/private" }.map { $0.header("Cookie") } == ["session=ann", "session=bob"])
    }

    @Test func aStreamedBodyIsStoredOnlyOnceItWasReadToTheEnd() async throws {
        let store = MemoryCacheStore()
        let body = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
        let transport = MockTransport { _, _ in
            .status(.ok, headers: ["Cache-Control": "max-age=600"], body: String(decoding: body.base64EncodedData(), as: UTF8.self))
        }
        let client = Client(transport: transport, middlewares: [CacheMiddleware(store: store)])
        let url = URL(string: "https://api.example.com/export")!
        let response = try await client.stream(HTTPRequest(url: url))
        #expect(try await store.entryCount() == 0)  // nothing stored while the body is unread
        let read = try await response.bodyStream!.collect()
        #expect(try await store.entryCount() == 1)
        // The next call is a hit, as a stream too, with the same bytes.
        let hit = try await client.stream(HTTPRequest(url: url))
        #expect(hit.source == .cache)
        #expect(try await hit.bodyStream!.collect() == read)
        #expect(transport.requests.count == 1)
    }

    @Test func aStreamedBodyThatFailsOrIsLeftEarlyIsNeverStored() async throws {
        let store = MemoryCacheStore()
        struct Cut: Error {}
        let sent = Locked(0)
        let transport = MockTransport { _, _ in
            var response = HTTPResponse(status: .ok, headers: ["Cache-Control": "max-age=600"])
            response.bodyStream = ResponseBodyStream(pull: {
                let count = sent.withLock { value -> Int in
                    value += 1
                    return value
                }
                if count == 3 { throw Cut() }
                return Data("part \(count);".utf8)
            })
            return .response(response)
        }
        let client = Client(transport: transport, middlewares: [CacheMiddleware(store: store)])
        let response = try await client.stream(HTTPRequest(url: URL(string: "https://api.example.com/cut")!))
        // A stream's error is attributed to the stage that threw it, as any stage's error is.
        let error = await #expect(throws: SluiceError.self) { _ = try await response.bodyStream!.collect() }
        #expect(error?.underlying is Cut && error?.stage?.is(MockTransport.self) == true)
        #expect(try await store.entryCount() == 0)
        do {
            let early = try await client.stream(HTTPRequest(url: URL(string: "https://api.example.com/early")!))
            var iterator = early.bodyStream!.makeAsyncIterator()
            _ = try await iterator.next()
        }
        #expect(try await store.entryCount() == 0)
    }

    @Test func aSharedCacheObeysItsTargetedFieldThroughTheWholeChain() async throws {
        let server = try MockWebServer()
        server.setHandler { _ in
            .init(status: 200, headers: [("Cache-Control", "no-store"), ("CDN-Cache-Control", "max-age=60")], body: "edge")
        }
        func client(_ targeted: [String]) -> Client {
            var configuration = CacheMiddleware.Configuration(isShared: true)
            configuration.targetedFields = targeted
            var builder = Client.Builder(transport: CurlTransport())
            builder.add(CacheMiddleware(store: MemoryCacheStore(), configuration: configuration))
            return builder.build()
        }
        let cdn = client(["CDN-Cache-Control"])
        _ = try await cdn.get(server.url("/page").absoluteString)
        #expect(try await cdn.get(server.url("/page").absoluteString).source == .cache)
        #expect(server.requests.count == 1)
        // A cache that names no targeted field follows Cache-Control: no-store.
        let plain = client([])
        _ = try await plain.get(server.url("/page").absoluteString)
        #expect(try await plain.get(server.url("/page").absoluteString).source == .network)
        #expect(server.requests.count == 3)
    }

    @Test func aCallersConditionalRequestIsAnsweredFromAFreshCopy() async throws {
        let server = try MockWebServer()
        let modified = "Sun, 06 Nov 1994 08:49:37 GMT"
        server.setHandler { request in
            if request.target == "/stale", request.header("If-None-Match") == "\"v1\"" { return .init(status: 304, headers: [("ETag", "\"v1\"")], body: "") }
            let age = request.target == "/stale" ? "0" : "60"
            return .init(
                status: 200, headers: [("ETag", "\"v1\""), ("Last-Modified", modified), ("Cache-Control", "max-age=\(age)"), ("X-Other", "kept")],
                body: "document")
        }
        var builder = Client.Builder(transport: CurlTransport())
        builder.add(CacheMiddleware(store: MemoryCacheStore(), configuration: .init(isShared: true)))
        let client = builder.build()
        func get(_ path: String, _ fields: [(String, String)]) async throws -> HTTPResponse {
            var request = HTTPRequest(url: server.url(path))
            for (name, value) in fields { try request.headers.set(name: name, value: value) }
            return try await client.send(request)
        }
        _ = try await get("/doc", [])
        let matching = try await get("/doc", [("If-None-Match", "\"v0\", \"v1\"")])
        #expect(matching.status.code == 304)
        #expect(matching.source == .cache)
        #expect(matching.body.isEmpty)
        #expect(matching.headers["ETag"] == "\"v1\"" && matching.headers["Cache-Control"] == "max-age=60" && matching.headers["Age"] != nil)
        #expect(matching.headers["X-Other"] == nil)
        #expect(try await get("/doc", [("If-None-Match", "W/\"v1\"")]).status.code == 304)  // weak comparison
        let other = try await get("/doc", [("If-None-Match", "\"v2\"")])
        #expect(other.status == .ok && other.text == "document" && other.source == .cache)
        #expect(try await get("/doc", [("If-Modified-Since", "Mon, 07 Nov 1994 08:49:37 GMT")]).status.code == 304)
        #expect(try await get("/doc", [("If-Modified-Since", "Sat, 05 Nov 1994 08:49:37 GMT")]).status == .ok)
        #expect(server.requests.count == 1)  // all of these from the cache
        // A stale copy: the caller's conditional goes to the origin as written, and its 304 comes back.
        _ = try await get("/stale", [])
        let forwarded = try await get("/stale", [("If-None-Match", "\"v1\"")])
        #expect(forwarded.status.code == 304)
        #expect(server.requests.last?.header("If-None-Match") == "\"v1\"")
        #expect(server.requests.count == 3)
    }

    @Test func aSingleRangeIsAnsweredFromAFreshCompleteCopy() async throws {
        let server = try MockWebServer()
        let body = "0123456789abcdefghij"  // 20 bytes
        server.setHandler { request in
            if request.header("Range") != nil { return .init(status: 206, headers: [("Content-Range", "bytes 0-1/20")], body: "01") }
            return .init(status: 200, headers: [("Cache-Control", "max-age=60"), ("ETag", "\"v1\"")], body: body)
        }
        var builder = Client.Builder(transport: CurlTransport())
        builder.add(CacheMiddleware(store: MemoryCacheStore()))
        let client = builder.build()
        func get(_ fields: [(String, String)]) async throws -> HTTPResponse {
            var request = HTTPRequest(url: server.url("/file"))
            for (name, value) in fields { try request.headers.set(name: name, value: value) }
            return try await client.send(request)
        }
        _ = try await get([])
        let middle = try await get([("Range", "bytes=5-9")])
        #expect(middle.status.code == 206 && middle.text == "56789" && middle.headers["Content-Range"] == "bytes 5-9/20")
        #expect(middle.source == .cache)
        let open = try await get([("Range", "bytes=15-")])
        #expect(open.text == "fghij" && open.headers["Content-Range"] == "bytes 15-19/20")
        let suffix = try await get([("Range", "bytes=-3")])
        #expect(suffix.text == "hij" && suffix.headers["Content-Range"] == "bytes 17-19/20")
        let past = try await get([("Range", "bytes=25-30")])
        #expect(past.status.code == 416 && past.headers["Content-Range"] == "bytes */20" && past.body.isEmpty)
        let clipped = try await get([("Range", "bytes=18-99")])
        #expect(clipped.text == "ij" && clipped.headers["Content-Range"] == "bytes 18-19/20")
        // If-Range that does not match: the whole response.
        let changed = try await get([("Range", "bytes=0-1"), ("If-Range", "\"v2\"")])
        #expect(changed.status == .ok && changed.text == body)
        #expect(server.requests.count == 1)
        // Several ranges go to the origin.
        let several = try await get([("Range", "bytes=0-1,5-6")])
        #expect(several.status.code == 206 && several.source == .network)
        #expect(server.requests.count == 2)
    }
}

@Suite("Client.cacheStore")
struct ClientCacheStoreTests {
    @Test func theClientsCacheIsReachableToCountAndClear() async throws {
        let store = MemoryCacheStore()
        let transport = MockTransport { _, _ in .status(.ok, headers: ["Cache-Control": "max-age=60"], body: "hi") }
        let client = Client(transport: transport, middlewares: [CacheMiddleware(store: store)])
        _ = try await client.get("https://api.example.com/a")
        let cache = try #require(client.cacheStore)
        #expect(try await cache.entryCount() == 1)
        #expect(try await cache.totalSize() > 0)
        try await cache.clear()
        #expect(try await store.entryCount() == 0)
        #expect(Client(transport: transport).cacheStore == nil)
    }
}
