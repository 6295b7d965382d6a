import Foundation
import Sluice
import SluiceCache
import SluiceCacheRedis
import SluiceCurl
import SluiceTestSupport
import SluiceTesting
import Testing

@Suite("RedisCacheStore")
struct RedisCacheStoreTests {
    @Test func redisGoingAwayNeverFailsARequestAndHitsResumeWhenItIsBack() async throws {
        let redis = OwnRedis()
        try await redis.start()
        let log = Locked([String]())
        let store = RedisCacheStore(configuration: .init(port: redis.port, keyPrefix: "outage:", log: { line in log.withLock { $0.append(line) } }))
        let transport = MockTransport { _, _ in .status(.ok, headers: ["Cache-Control": "max-age=600"], body: "fresh") }
        let pipeline = Pipeline(middlewares: [CacheMiddleware(store: store)], transport: transport)
        let url = URL(string: "https://api.example.com/feed")!
        func fetch() async throws -> HTTPResponse { try await pipeline.send(HTTPRequest(url: url)) }

        #expect(try await fetch().source == .network)
        #expect(try await fetch().source == .cache)

        redis.kill()
        for _ in 0..<5 {
            let response = try await fetch()  // never an error: the cache is bypassed
            #expect(response.status == .ok && response.text == "fresh" && response.source == .network)
        }
        #expect(log.withLock { $0.count } == 1, "one warning per outage: \(log.withLock { $0 })")
        #expect(log.withLock { $0.first }?.hasPrefix("Redis at 127.0.0.1:\(redis.port) ") == true)
        #expect(log.withLock { $0.first }?.hasSuffix("; the cache is bypassed until Redis answers again") == true)

        try await redis.start()  // empty: no persistence
        // Within a second the store tries Redis again; the first fetch after that stores, the next hits
        // (the loop ends then: 60 s is for a loaded machine, not a wait).
        var sources: [ResponseSource] = []
        let deadline = ContinuousClock.now + TestTiming.scaled(.seconds(60))
        while sources.last != .cache, ContinuousClock.now < deadline {
            sources.append(try await fetch().source)
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(sources.last == .cache, "\(sources)")
        #expect(log.withLock { $0.last } == "Redis at 127.0.0.1:\(redis.port) answers again; the cache is back")
        #expect(log.withLock { $0.count } == 2)
        try await store.clear()
    }

    /// Called from an event thread, the command runs there, holding the connection; from anywhere
    /// else, on the connection's own thread. Either way, a stall times out and is bypassed.
    @Test(arguments: [false, true])
    func aStalledRedisTimesOutAndIsBypassedUntilItAnswers(onAnEventThread: Bool) async throws {
        let transport = CurlTransport()
        try await withTaskExecutorPreference(onAnEventThread ? transport.executor : nil) {
            #expect(EventThread.isCurrent == onAnEventThread)
            try await stalledRedisTimesOut()
        }
    }

    func stalledRedisTimesOut() async throws {
        let redis = OwnRedis()
        try await redis.start()
        let log = Locked([String]())
        let store = RedisCacheStore(
            configuration: .init(
                port: redis.port, keyPrefix: "stall:", commandTimeout: .milliseconds(300),
                log: { line in log.withLock { $0.append(line) } }))
        try await store.put(CacheStoreEntry.sample, for: "k")
        redis.signal(SIGSTOP)
        let started = ContinuousClock.now
        await #expect {
            _ = try await store.get("k")
        } throws: { error in
            (error as? RedisCacheError)?.message
                == "Redis at 127.0.0.1:\(redis.port) did not finish its reply to GET within 0.3 seconds "
                + "(RedisCacheStore.Configuration.commandTimeout, for the whole reply); 0 bytes came"
        }
        let waited = started.duration(to: .now)
        // At least the timeout, and then an answer, however loaded the machine (without one, hiredis waits forever).
        #expect(waited >= .milliseconds(250) && waited < TestTiming.scaled(.seconds(30)), "the 300 ms command timeout: \(waited)")
        redis.signal(SIGCONT)
        try await Task.sleep(for: .milliseconds(1_100))  // past the default one-second retry interval
        #expect(try await store.get("k") == CacheStoreEntry.sample)
        #expect(log.withLock { $0.count } == 2, "\(log.withLock { $0 })")
    }

    @Test func entriesAreStoredWithTheirLifetimeAsRedisExpiry() async throws {
        // The expiry itself is Redis's; what the store owes is `EX` with the configured lifetime.
        // (Waiting for a short lifetime to pass raced the load of a full parallel test run, so the
        // TTL is compared with the lifetime less the time the test itself took.)
        let (host, port) = (try InteropServers.value("SLUICE_REDIS_HOST"), Int(try InteropServers.value("SLUICE_REDIS_PORT")) ?? 0)
        let store = RedisCacheStore(configuration: .init(host: host, port: port, keyPrefix: "ttl-\(UUID().uuidString):", entryLifetime: .seconds(3_600)))
        let started = ContinuousClock.now
        try await store.put(CacheStoreEntry.sample, for: "k")
        #expect(try await store.get("k") == CacheStoreEntry.sample)
        let cli = Process()
        cli.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        cli.arguments = ["redis-cli", "-h", host, "-p", "\(port)", "TTL", store.configuration.keyPrefix + "k"]
        let (output, status) = try await Blocking.output(of: cli)
        let seconds = Int(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        let elapsed = Int(started.duration(to: .now).components.seconds) + 1
        #expect(status == 0)
        #expect(
            seconds.map { (3_600 - elapsed...3_600).contains($0) } == true,
            "TTL \(String(describing: seconds)) after \(elapsed) s; -1 would mean no expiry")
        try await store.clear()
    }

    @Test func anUnreachableRedisFailsFastWithATypedError() async throws {
        let closed = OwnRedis()  // never started: nothing listens
        // A long retry interval: the second call comes within it however loaded the machine is.
        let store = RedisCacheStore(configuration: .init(port: closed.port, retryInterval: .seconds(600), log: { _ in }))
        await #expect {
            _ = try await store.get("GET https://example.com/")
        } throws: { error in
            (error as? RedisCacheError)?.message.hasPrefix("Redis at 127.0.0.1:\(closed.port) is unreachable: ") == true
        }
        // Within the outage window the next call does not even try to connect: its message says so.
        await #expect {
            try await store.put(CacheStoreEntry.sample, for: "k")
        } throws: { error in
            (error as? RedisCacheError)?.message == "Redis at 127.0.0.1:\(closed.port) is unreachable; the cache is bypassed"
        }
    }

    @Test func aDamagedValueIsATypedErrorNamingTheKey() async throws {
        let (host, port) = (try InteropServers.value("SLUICE_REDIS_HOST"), Int(try InteropServers.value("SLUICE_REDIS_PORT")) ?? 0)
        let prefix = "damaged-\(UUID().uuidString):"
        let store = RedisCacheStore(configuration: .init(host: host, port: port, keyPrefix: prefix))
        try await store.put(CacheStoreEntry.sample, for: "k")
        // Overwritten behind the store's back, as another program sharing the Redis might: first
        // with damaged bytes of this format, then with values of the earlier formats.
        for (value, message) in [
            ("SLC3garbage", #"the Redis value for "k" is damaged"#),
            ("SLC3", #"the Redis value for "k" is damaged"#),
            ("SLC2garbage", #"the Redis value for "k" is not a Sluice cache entry"#),
            ("SLC1garbage", #"the Redis value for "k" is not a Sluice cache entry"#),
        ] {
            let cli = Process()
            cli.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            cli.arguments = ["redis-cli", "-h", host, "-p", "\(port)", "SET", prefix + "k", value]
            cli.standardOutput = FileHandle.nullDevice
            try cli.run()
            try await Blocking.run { cli.waitUntilExit() }
            await #expect {
                _ = try await store.get("k")
            } throws: { error in
                (error as? RedisCacheError)?.message == message
            }
        }
        try await store.clear()
    }
}

enum CacheStoreEntry {
    static let sample = CachedResponse(
        method: "GET", url: "https://example.com/", status: 200, headers: ["Cache-Control": "max-age=60"],
        body: Data("body".utf8), requestTime: Date(timeIntervalSince1970: 1_000), responseTime: Date(timeIntervalSince1970: 1_001)
    )
}

@Suite("RedisCacheStore shared by processes")
struct RedisSharedTests {
    struct Outcome: Sendable {
        let status: Int32
        let text: String
    }

    static func fetch(_ url: URL, prefix: String) async throws -> Outcome {
        let process = Process()
        process.executableURL = try BuiltProducts.executable("sluice-cache-stress")
        process.arguments = [
            "redis-fetch", try InteropServers.value("SLUICE_REDIS_HOST"), try InteropServers.value("SLUICE_REDIS_PORT"),
            prefix, url.absoluteString,
        ]
        let (data, status) = try await Blocking.output(of: process, mergingErrors: true)
        return Outcome(status: status, text: String(decoding: data, as: UTF8.self))
    }

    @Test func whatOneProcessFetchedIsAHitForThreeOthers() async throws {
        let prefix = "fleet-\(UUID().uuidString):"
        let url = try InteropServers.nginx("/small.json?fleet=\(UUID().uuidString)")
        let first = try await Self.fetch(url, prefix: prefix)
        #expect(first.status == 0, "\(first.text)")
        #expect(first.text.hasPrefix("source network status 200 bytes "), "\(first.text)")
        let others = try await withThrowingTaskGroup(of: Outcome.self) { group in
            for _ in 0..<3 { group.addTask { try await Self.fetch(url, prefix: prefix) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let bytes = first.text.split(separator: " ").last.map(String.init)
        for other in others {
            #expect(other.status == 0, "\(other.text)")
            #expect(other.text == "source cache status 200 bytes \(bytes ?? "?")", "\(other.text)")
        }
        try await RedisCacheStore(
            configuration: .init(
                host: try InteropServers.value("SLUICE_REDIS_HOST"),
                port: Int(try InteropServers.value("SLUICE_REDIS_PORT")) ?? 0,
                keyPrefix: prefix)
        ).clear()
    }
}
