// sluice-bench --cache: SluiceCache over each of its stores (SQLite, memory, and Redis with
// --redis HOST:PORT) beside Python's requests-cache (SQLite backend), in one run, against the same
// nginx.
//
//   cache-hit         a stored 1 KB response served through the whole pipeline (the cache in its
//                     default place among nine stages); the median time of one request
//   cache-miss-store  a new URL each time: the network, then a store into SQLite; requests per
//                     second with 16 in flight (requests-cache, which is synchronous: one at a time)
import Foundation
import Sluice
import SluiceCache
import SluiceCacheRedis
import SluiceCurl

struct CacheFigures {
    var hitMedianMicroseconds: Double
    var missStorePerSecond: Double
}

func sluiceCacheFigures(base: URL, hits: Int, misses: Int, store: any CacheStore) async throws -> CacheFigures {
    let transport = CurlTransport()
    return try await withTaskExecutorPreference(transport.executor) {
        try await sluiceCacheFigures(base: base, hits: hits, misses: misses, store: store, transport: transport)
    }
}

func sluiceCacheFigures(base: URL, hits: Int, misses: Int, store: any CacheStore, transport: CurlTransport) async throws -> CacheFigures {
    let stages: [any Middleware] =
        Array(repeating: PassThrough(), count: 4) + [CacheMiddleware(store: store)]
        + Array(repeating: PassThrough(), count: 4)
    let pipeline = Pipeline(middlewares: stages, transport: transport)
    let url = base.appendingPathComponent("small.json")
    let primed = try await pipeline.send(HTTPRequest(url: url))
    guard primed.status.code == 200 else { throw BenchFailure(description: "cache: priming got \(primed.status)") }

    var timings: [Double] = []
    timings.reserveCapacity(hits)
    for _ in 0..<hits {
        let start = ContinuousClock.now
        let response = try await pipeline.send(HTTPRequest(url: url))
        let elapsed = start.duration(to: .now)
        guard response.source == .cache, response.body.count > 0 else {
            throw BenchFailure(description: "cache-hit: a request was not served from the cache (\(response.source))")
        }
        timings.append(elapsed.timeInterval * 1e6)
    }

    let start = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for worker in 0..<16 {
            group.addTask {
                for index in stride(from: worker, to: misses, by: 16) {
                    let response = try await pipeline.send(HTTPRequest(url: URL(string: url.absoluteString + "?n=\(index)")!))
                    guard response.source == .network, response.status.code == 200 else {
                        throw BenchFailure(description: "cache-miss-store: got \(response.source) \(response.status)")
                    }
                }
            }
        }
        try await group.waitForAll()
    }
    let elapsed = start.duration(to: .now)
    let seconds = elapsed.timeInterval
    guard try await store.entryCount() == misses + 1 else {
        throw BenchFailure(description: "cache-miss-store: \(try await store.entryCount()) entries stored, expected \(misses + 1)")
    }
    return CacheFigures(hitMedianMicroseconds: median(timings), missStorePerSecond: Double(misses) / seconds)
}

/// The p50 of a bare Redis `GET` round trip, in µs: `redis-benchmark -c 1 -t get -d 1024` against
/// the same server, the floor a Redis cache hit stands on.
func redisBenchmarkP50(host: String, port: Int, requests: Int) throws -> Double {
    let process = Process()
    let output = Pipe()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["redis-benchmark", "-h", host, "-p", String(port), "-c", "1", "-n", String(requests), "-t", "get", "-d", "1024", "--csv"]
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    // "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms",…
    let fields = text.split(separator: "\n").last { $0.hasPrefix("\"GET\"") }?.split(separator: ",").map {
        $0.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
    }
    guard process.terminationStatus == 0, let fields, fields.count > 4, let p50 = Double(fields[4]) else {
        throw BenchFailure(description: "redis-benchmark: \(text)")
    }
    return p50 * 1000
}

func requestsCacheFigures(python: String, base: URL, hits: Int, misses: Int, folder: String) throws -> CacheFigures {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../requests_cache_bench.py").standardized.path
    let process = Process()
    let output = Pipe()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = [script, base.absoluteString, String(hits), String(misses), folder + "/requests-cache.sqlite"]
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0,
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Double],
        let hit = object["hit_median_us"], let miss = object["miss_store_per_s"]
    else {
        throw BenchFailure(description: "requests-cache: \(String(decoding: data, as: UTF8.self))")
    }
    return CacheFigures(hitMedianMicroseconds: hit, missStorePerSecond: miss)
}

/// `--cache`: both caches, `rounds` times alternating, medians of the rounds.
func cacheBenchmark(base: URL, python: String?, redis: (host: String, port: Int)?, rounds: Int, scale: Double, json: Bool) async throws -> Int32 {
    let hits = max(100, Int(20_000 * scale)), misses = max(50, Int(2_000 * scale))
    var sqlite: [CacheFigures] = [], memory: [CacheFigures] = [], redisFigures: [CacheFigures] = [], python3: [CacheFigures] = []
    var redisRoundTrips: [Double] = []
    for round in 0..<rounds {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-cache-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // The order turns each round, so no store always runs first or last.
        var runs: [() async throws -> Void] = [
            {
                sqlite.append(
                    try await sluiceCacheFigures(
                        base: base, hits: hits, misses: misses,
                        store: try SQLiteCacheStore(path: folder + "/sluice.sqlite", configuration: .init(maximumSize: 1 << 30))))
            },
            {
                memory.append(
                    try await sluiceCacheFigures(base: base, hits: hits, misses: misses, store: MemoryCacheStore(configuration: .init(maximumSize: 1 << 30))))
            },
        ]
        if let redis {
            runs.append {
                let store = RedisCacheStore(configuration: .init(host: redis.host, port: redis.port, keyPrefix: "bench-\(UUID().uuidString):"))
                redisFigures.append(try await sluiceCacheFigures(base: base, hits: hits, misses: misses, store: store))
                try await store.clear()
            }
            runs.append { redisRoundTrips.append(try redisBenchmarkP50(host: redis.host, port: redis.port, requests: hits)) }
        }
        if let python {
            runs.append { python3.append(try requestsCacheFigures(python: python, base: base, hits: hits / 10, misses: misses, folder: folder)) }
        }
        for index in runs.indices { try await runs[(index + round) % runs.count]() }
    }
    let rows: [(String, [CacheFigures])] =
        [("sluice, SQLite", sqlite), ("sluice, memory", memory)]
        + (redisFigures.isEmpty ? [] : [("sluice, Redis", redisFigures)]) + (python3.isEmpty ? [] : [("requests-cache", python3)])
    if json {
        for (client, figures) in rows {
            print(#"{"client": "\#(client)", "scenario": "cache-hit", "median_us": \#(String(format: "%.1f", median(figures.map(\.hitMedianMicroseconds))))}"#)
            print(#"{"client": "\#(client)", "scenario": "cache-miss-store", "rps": \#(String(format: "%.1f", median(figures.map(\.missStorePerSecond))))}"#)
        }
        if !redisRoundTrips.isEmpty {
            print(#"{"client": "redis-benchmark", "scenario": "get-p50", "median_us": \#(String(format: "%.1f", median(redisRoundTrips)))}"#)
        }
        return 0
    }
    print("sluice-bench --cache against \(base.absoluteString): median of \(rounds) rounds (\(hits) hits, \(misses) misses a round)")
    print("")
    print("| client | cache hit, 1 KB, median µs | miss + store, req/s (sluice: 16 in flight; requests-cache: sequential) |")
    print("|---|---:|---:|")
    for (client, figures) in rows {
        print(String(format: "| %@ | %.1f | %.0f |", client, median(figures.map(\.hitMedianMicroseconds)), median(figures.map(\.missStorePerSecond))))
    }
    if !redisRoundTrips.isEmpty {
        let floor = median(redisRoundTrips)
        print(String(format: "| redis-benchmark -c 1 -t get -d 1024, p50 | %.1f | |", floor))
        print("")
        print(
            String(
                format: "Redis hit / bare Redis GET round trip (p50, same server, same run): %.2f×", median(redisFigures.map(\.hitMedianMicroseconds)) / floor))
    }
    return 0
}
