// sluice-cache-stress: processes that share one SQLiteCacheStore file, for the cache's
// multi-process tests (Tests/SluiceCacheTests/CacheProcessTests.swift).
//
//     sluice-cache-stress hammer PATH SECONDS SEED   puts, gets, deletes and clears for SECONDS;
//                                                    prints "calls N errors M", exits 1 on any error
//     sluice-cache-stress writer PATH PREFIX        puts PREFIX0, PREFIX1, … forever, printing each
//                                                    key after its put returned (to be killed with
//                                                    SIGKILL); every tenth body goes to a file
//     sluice-cache-stress redis-fetch HOST PORT PREFIX URL
//                                                    one GET through CacheMiddleware over a
//                                                    RedisCacheStore and CurlTransport; prints
//                                                    "source S status N bytes B"
//     sluice-cache-stress redis-get-peak PORT LIMIT  one RedisCacheStore.get from 127.0.0.1:PORT with
//                                                    maxReplySize LIMIT and a 10 s command timeout;
//                                                    prints "error E" or "bytes B", then
//                                                    "peakKiB P" (this process's VmHWM), so a test
//                                                    sees what a hostile reply made it hold
//     sluice-cache-stress diskfull PATH              fills the disk under PATH (a small tmpfs in the
//                                                    test) with puts until they fail, then checks
//                                                    that nothing acknowledged was lost and that a
//                                                    request through CacheMiddleware still succeeds
import Dispatch
import Foundation
import Sluice
import SluiceCache
import SluiceCacheRedis
import SluiceCurl

#if canImport(Glibc)
    import Glibc
#endif

func entry(_ key: String, size: Int) -> CachedResponse {
    CachedResponse(
        method: "GET", url: "https://stress.example/\(key)", status: 200,
        headers: ["Cache-Control": "max-age=60", "X-Key": key],
        body: Data(repeating: UInt8(truncatingIfNeeded: key.hashValue), count: size),
        requestTime: Date(), responseTime: Date()
    )
}

func hammer(path: String, seconds: Double, seed: UInt64) async -> Int32 {
    // Hammer at a lower priority, so the tests running beside it keep their timing.
    _ = nice(10)
    var configuration = SQLiteCacheStore.Configuration.default
    configuration.maximumSize = 2 << 20
    configuration.bodyFileThreshold = 16 << 10
    let store: SQLiteCacheStore
    do { store = try SQLiteCacheStore(path: path, configuration: configuration) } catch {
        print("open failed: \(error)")
        return 1
    }
    var state = seed | 1
    func next() -> UInt64 { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state }
    let end = Date().addingTimeInterval(seconds)
    var calls = 0, errors = 0
    while Date() < end {
        let key = "k\(next() % 64)"
        do {
            switch next() % 10 {
            case 0...4: try await store.put(entry(key, size: Int(next() % 40_000)), for: key)
            case 5...7: _ = try await store.get(key)
            case 8: _ = try await store.delete(key)
            default: _ = try await store.delete(prefix: "k1")
            }
        } catch {
            errors += 1
            print("error: \(error)")
        }
        calls += 1
    }
    print("calls \(calls) errors \(errors)")
    return errors == 0 ? 0 : 1
}

func writer(path: String, prefix: String) async -> Int32 {
    let store: SQLiteCacheStore
    do { store = try SQLiteCacheStore(path: path) } catch {
        print("open failed: \(error)")
        return 1
    }
    var index = 0
    while true {
        let key = prefix + String(index)
        do {
            try await store.put(entry(key, size: index % 10 == 0 ? 70_000 : 500), for: key)
            // Unbuffered: the line is out before the next put starts, so a SIGKILL loses nothing.
            FileHandle.standardOutput.write(Data((key + "\n").utf8))
        } catch {
            print("error: \(error)")
        }
        index += 1
    }
}

func diskFull(path: String) async -> Int32 {
    let store: SQLiteCacheStore
    do { store = try SQLiteCacheStore(path: path, configuration: .init(bodyFileThreshold: 16 << 10, log: { _ in })) } catch {
        print("open failed: \(error)")
        return 1
    }
    var acknowledged: [String: Int] = [:]
    var failures: [String] = []
    var index = 0
    // Sizes from 1 KB to 40 KB, so rows and body files both meet the full disk; 20 more puts
    // after the first failure show that the store keeps failing softly.
    while failures.count < 20 && index < 10_000 {
        let key = "k\(index)", size = 1_000 + (index * 7_919) % 39_000
        do {
            try await store.put(entry(key, size: size), for: key)
            acknowledged[key] = size
        } catch let error as SQLiteCacheError {
            failures.append("\(error.code)")
        } catch {
            failures.append("\(type(of: error)): \(error)")
        }
        index += 1
    }
    var lost = 0
    for (key, size) in acknowledged {
        let stored = try? await store.get(key)
        if stored?.body != entry(key, size: size).body { lost += 1 }
    }
    // A request whose response cannot be stored still returns it, whole.
    let next = MiddlewareNext { _, _ in
        HTTPResponse(status: .ok, headers: ["Cache-Control": "max-age=60"], body: Data(repeating: 7, count: 300_000))
    }
    let response = try? await CacheMiddleware(store: store).intercept(
        HTTPRequest(url: URL(string: "https://example.com/after-full")!), context: RequestContext(), next: next
    )
    let delivered = response?.body == Data(repeating: 7, count: 300_000)
    let codes = Set(failures).sorted().joined(separator: ",")
    print("acknowledged \(acknowledged.count) lost \(lost) failed \(failures.count) codes \(codes) delivered \(delivered)")
    return lost == 0 && failures.count == 20 && delivered ? 0 : 1
}

func redisFetch(host: String, port: String, prefix: String, url: String) async -> Int32 {
    guard let port = Int(port), let url = URL(string: url) else { print("bad arguments"); return 2 }
    let store = RedisCacheStore(configuration: .init(host: host, port: port, keyPrefix: prefix))
    let pipeline = Pipeline(middlewares: [CacheMiddleware(store: store)], transport: CurlTransport())
    do {
        let response = try await pipeline.send(HTTPRequest(url: url))
        print("source \(response.source.rawValue) status \(response.status.code) bytes \(response.body.count)")
        return 0
    } catch {
        print("error: \(error)")
        return 1
    }
}

/// This process's peak resident set in KiB, from /proc/self/status.
func peakResidentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return -1 }
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
}

func redisGetPeak(port: String, limit: String) async -> Int32 {
    guard let port = Int(port), let limit = Int(limit) else { print("bad arguments"); return 2 }
    var configuration = RedisCacheStore.Configuration(port: port, commandTimeout: .seconds(10), log: { _ in })
    configuration.maxReplySize = limit
    do {
        let entry = try await RedisCacheStore(configuration: configuration).get("k")
        print("bytes \(entry?.body.count ?? -1)")
    } catch {
        print("error \(error)")
    }
    print("peakKiB \(peakResidentKiB())")
    return 0
}

let arguments = CommandLine.arguments
var status: Int32 = 2
switch (arguments.count, arguments.count > 1 ? arguments[1] : "") {
case (5, "hammer"): status = await hammer(path: arguments[2], seconds: Double(arguments[3]) ?? 1, seed: UInt64(arguments[4]) ?? 1)
case (4, "writer"): status = await writer(path: arguments[2], prefix: arguments[3])
case (3, "diskfull"): status = await diskFull(path: arguments[2])
case (6, "redis-fetch"): status = await redisFetch(host: arguments[2], port: arguments[3], prefix: arguments[4], url: arguments[5])
case (4, "redis-get-peak"): status = await redisGetPeak(port: arguments[2], limit: arguments[3])
default:
    print(
        "usage: sluice-cache-stress hammer PATH SECONDS SEED | writer PATH PREFIX | diskfull PATH | redis-fetch HOST PORT PREFIX URL "
            + "| redis-get-peak PORT LIMIT")
}
exit(status)
