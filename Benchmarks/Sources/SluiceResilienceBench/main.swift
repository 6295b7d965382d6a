// sluice-resilience-bench: what SluiceResilience buys against a misbehaving host on 127.0.0.1
// (`make bench-resilience`).
//
// - Hedging against a slow tail: a server whose every 20th answer takes 1 s. N sequential GETs
//   through CurlTransport with and without HedgingMiddleware (its defaults: the origin's p95,
//   at most 10% extra): p50 and p99 of the calls, and the extra requests the server saw.
// - The circuit breaker against a host that answers 503 to everything: N calls with and without
//   CircuitBreakerMiddleware (its defaults: 20 calls, half failing, 10 at least): the calls that
//   reached the host, the call after which calls failed fast, and the time the N calls took.
// - The adaptive concurrency limit against a server that serves 8 calls at once (50 ms each) and
//   queues the rest: 32 callers for 5 s with and without ConcurrencyLimitMiddleware (its
//   defaults): calls answered per second, the callers' p50 and p99, and how many calls were
//   queued at the server when each arrived.
//
//     swift run -c release --package-path Benchmarks sluice-resilience-bench [N]
import BenchmarkSupport
import Foundation
import Sluice
import SluiceCurl
import SluiceResilience
import SluiceTesting
import Synchronization

let calls = CommandLine.arguments.dropFirst().compactMap { Int($0) }.first ?? 400

/// The `fraction` percentile of `values` (nearest rank).
func percentile(_ values: [Duration], _ fraction: Double) -> Duration {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, max(0, Int((Double(sorted.count) * fraction).rounded(.up)) - 1))]
}

func milliseconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    return String(format: "%.1f ms", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
}

/// The requests a server has seen.
final class Counter: Sendable {
    let value = Atomic<Int>(0)
}

/// A server's real concurrency: `capacity` calls served at once, the rest queued; counts the
/// calls queued when each arrives.
final class CapacityGate: Sendable {
    private struct State {
        var serving = 0
        var queued = 0
        var arrivals = 0
        var queuedSeen = 0
        var maxQueued = 0
    }

    let capacity: Int
    private let condition = NSCondition()
    /// Read and written only while `condition` is locked.
    nonisolated(unsafe) private var state = State()

    init(capacity: Int) {
        self.capacity = capacity
    }

    func serve(_ work: () -> Void) {
        condition.lock()
        state.arrivals += 1
        state.queuedSeen += state.serving >= capacity ? state.queued + 1 : 0
        state.maxQueued = max(state.maxQueued, state.serving >= capacity ? state.queued + 1 : 0)
        state.queued += 1
        while state.serving >= capacity { condition.wait() }
        state.queued -= 1
        state.serving += 1
        condition.unlock()
        work()
        condition.lock()
        state.serving -= 1
        condition.signal()
        condition.unlock()
    }

    /// The mean and the most calls queued when a call arrived.
    var queued: (mean: Double, max: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (Double(state.queuedSeen) / Double(max(1, state.arrivals)), state.maxQueued)
    }
}

/// N calls to `url` through `client`; each call's latency.
func latencies(_ client: Client, _ url: URL) async throws -> [Duration] {
    var latencies: [Duration] = []
    for _ in 0..<calls {
        let start = ContinuousClock.now
        _ = try await client.send(HTTPRequest(url: url))
        latencies.append(start.duration(to: .now))
    }
    return latencies
}

SynchronousMain.run("sluice-resilience-bench") {
    print("Hedging: \(calls) sequential GETs, every 20th answer of the server takes 1 s")
    print("| client | p50 | p99 | requests the server saw | extra |")
    print("|---|---:|---:|---:|---:|")
    for hedged in [false, true] {
        let server = try MockWebServer()
        let count = Counter()
        server.setHandler { _ in
            let number = count.value.add(1, ordering: .relaxed).newValue
            let response = MockWebServer.Response(status: 200, body: "ok")
            return number % 20 == 0 ? response.with(headersDelay: .seconds(1)) : response
        }
        let hedger = HedgingMiddleware()
        let client = Client(transport: CurlTransport(), middlewares: hedged ? [hedger] : [])
        let measured = try await latencies(client, server.url("/tail"))
        let seen = server.requests.count
        print(
            "| \(hedged ? "HedgingMiddleware (p95, 10% budget)" : "no hedging") | \(milliseconds(percentile(measured, 0.5))) | "
                + "\(milliseconds(percentile(measured, 0.99))) | \(seen) | \(String(format: "%.1f%%", Double(seen - calls) * 100 / Double(calls))) |")
        server.shutdown()
    }

    print("\nCircuit breaker: \(calls) calls to a host that answers 503 to everything")
    print("| client | calls that reached the host | calls failing fast from call | time for the \(calls) calls |")
    print("|---|---:|---:|---:|")
    for broken in [false, true] {
        let server = try MockWebServer()
        server.setHandler { _ in .init(status: 503, body: "down") }
        let client = Client(transport: CurlTransport(), middlewares: broken ? [CircuitBreakerMiddleware()] : [])
        var firstFast: Int?
        let start = ContinuousClock.now
        for index in 1...calls {
            do {
                _ = try await client.send(HTTPRequest(url: server.url("/down")))
            } catch let error as SluiceError where error.code == .circuitOpen {
                if firstFast == nil { firstFast = index }
            }
        }
        let elapsed = start.duration(to: .now)
        print(
            "| \(broken ? "CircuitBreakerMiddleware (defaults)" : "no breaker") | \(server.requests.count) | "
                + "\(firstFast.map(String.init) ?? "never") | \(milliseconds(elapsed)) |")
        server.shutdown()
    }

    print("\nConcurrency limit: 32 callers for 5 s, a server serving 8 calls at once (50 ms each) and queueing the rest")
    print("| client | calls per second | p50 | p99 | queued at the server on arrival (mean, most) |")
    print("|---|---:|---:|---:|---:|")
    for limited in [false, true] {
        let server = try MockWebServer()
        let gate = CapacityGate(capacity: 8)
        server.setHandler { _ in
            gate.serve { Thread.sleep(forTimeInterval: 0.05) }
            return .init(status: 200, body: "ok")
        }
        let client = Client(transport: CurlTransport(), middlewares: limited ? [ConcurrencyLimitMiddleware()] : [])
        let url = server.url("/work")
        let end = ContinuousClock.now + .seconds(5)
        let measured = try await withThrowingTaskGroup(of: [Duration].self) { group in
            for _ in 0..<32 {
                group.addTask {
                    var latencies: [Duration] = []
                    while ContinuousClock.now < end {
                        let start = ContinuousClock.now
                        _ = try await client.send(HTTPRequest(url: url))
                        latencies.append(start.duration(to: .now))
                    }
                    return latencies
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let queued = gate.queued
        print(
            "| \(limited ? "ConcurrencyLimitMiddleware (gradient, defaults)" : "no limit") | \(String(format: "%.0f", Double(measured.count) / 5)) | "
                + "\(milliseconds(percentile(measured, 0.5))) | \(milliseconds(percentile(measured, 0.99))) | "
                + "\(String(format: "%.1f", queued.mean)), \(queued.max) |")
        server.shutdown()
    }
    return 0
}
