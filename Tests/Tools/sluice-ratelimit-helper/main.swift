// sluice-ratelimit-helper: one process of a fleet that shares a rate limit through Redis, for
// SluiceRateLimitRedis's fleet tests (Tests/SluiceRateLimitRedisTests/FleetTests.swift).
//
//     sluice-ratelimit-helper REDIS_PORT URL REQUESTS PERIOD_MS SECONDS allow|refuse
//
// Sends GETs to URL from two callers for SECONDS through a Client whose RateLimitMiddleware keeps
// REQUESTS per PERIOD_MS (burst 4, so a late wake-up is made up, not lost) under the key "fleet" in the redis-server on 127.0.0.1, then
// prints "ok N tooMany T refused R failed F": answers 2xx, answers 429, calls the limiter refused
// (.rateLimited), and anything else.
import Foundation
import Sluice
import SluiceCurl
import SluiceRateLimitRedis
import SluiceResilience

let arguments = CommandLine.arguments
guard arguments.count == 7, let redisPort = Int(arguments[1]), let url = URL(string: arguments[2]), let requests = Int(arguments[3]),
    let period = Int(arguments[4]), let seconds = Double(arguments[5]), ["allow", "refuse"].contains(arguments[6])
else {
    FileHandle.standardError.write(Data("usage: sluice-ratelimit-helper REDIS_PORT URL REQUESTS PERIOD_MS SECONDS allow|refuse\n".utf8))
    exit(2)
}

let store = RedisRateLimitStore(configuration: .init(port: redisPort, keyPrefix: "fleet-test:", retryInterval: .milliseconds(200), log: { _ in }))
let limiter = RateLimitMiddleware(
    configuration: .init(
        limit: RateLimit(requests: requests, per: .milliseconds(period), burst: 4), key: .named("fleet"),
        whenStoreFails: arguments[6] == "allow" ? .allow : .refuse),
    store: store)
var builder = Client.Builder(transport: CurlTransport())
builder.add(limiter)
let client = builder.build()

struct Counts: Sendable {
    var ok = 0, tooMany = 0, refused = 0, failed = 0
}

let end = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
let counts = await withTaskGroup(of: Counts.self) { group in
    for _ in 0..<2 {
        group.addTask {
            var counts = Counts()
            while ContinuousClock.now < end {
                do {
                    let response = try await client.send(HTTPRequest(url: url), timeout: .seconds(5))
                    if response.status.code == 429 { counts.tooMany += 1 } else if response.status.isSuccess { counts.ok += 1 } else { counts.failed += 1 }
                } catch let error as SluiceError where error.code == .rateLimited {
                    counts.refused += 1
                    try? await Task.sleep(for: .milliseconds(20))
                } catch {
                    counts.failed += 1
                }
            }
            return counts
        }
    }
    var total = Counts()
    for await counts in group {
        total.ok += counts.ok
        total.tooMany += counts.tooMany
        total.refused += counts.refused
        total.failed += counts.failed
    }
    return total
}
print("ok \(counts.ok) tooMany \(counts.tooMany) refused \(counts.refused) failed \(counts.failed)")
