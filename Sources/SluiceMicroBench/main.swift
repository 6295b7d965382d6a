// sluice-microbench: the cost of the chain itself, with no network.
//
// Sends N requests (default 1,000,000) through 10 no-op middleware into a MockTransport, with
// tracing off and on, and through 0 middleware as the baseline. Per-hop cost is
// (time with 10 − time with 0) / (10 × N): the transport's own cost cancels out. Each case runs
// ROUNDS times, alternating, and the median is printed, because machines are noisy.
//
//     swift run -c release sluice-microbench [N] [ROUNDS]
import Foundation
import Sluice
import SluiceTesting

struct NoOpMiddleware: Middleware {
    func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        try await next(request, context)
    }
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let requests = arguments.first ?? 1_000_000
let rounds = arguments.dropFirst().first ?? 5
let hops = 10

let transport = MockTransport.successful(configuration: .init(recordsRequests: false))
let request = HTTPRequest(url: URL(string: "http://127.0.0.1/bench")!)
let baseline = Pipeline(middlewares: [], transport: transport)
let chain = Pipeline(middlewares: Array(repeating: NoOpMiddleware(), count: hops), transport: transport)

/// Wall and CPU nanoseconds for `count` sequential sends.
func measure(_ pipeline: Pipeline, tracing: Bool, count: Int) async throws -> (wall: Double, cpu: Double) {
    var context = RequestContext()
    context.isTracing = tracing
    let cpuStart = clock()
    let start = ContinuousClock.now
    for _ in 0..<count {
        let response = try await pipeline.send(request, context: context)
        precondition(response.status == .ok && (response.trace != nil) == tracing)
    }
    let wall = start.duration(to: .now)
    let cpu = Double(clock() - cpuStart) / Double(CLOCKS_PER_SEC) * 1e9
    return (Double(wall.components.seconds) * 1e9 + Double(wall.components.attoseconds) / 1e9, cpu)
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

// Warm up caches, the task allocator and the branch predictor.
for pipeline in [baseline, chain] {
    for tracing in [false, true] { _ = try await measure(pipeline, tracing: tracing, count: 20_000) }
}

var samples: [String: [Double]] = [:]
for _ in 0..<rounds {
    for (name, pipeline, tracing) in [
        ("base", baseline, false), ("chain", chain, false), ("baseTraced", baseline, true), ("chainTraced", chain, true),
    ] {
        let (wall, cpu) = try await measure(pipeline, tracing: tracing, count: requests)
        samples[name, default: []].append(wall / Double(requests))
        samples[name + "CPU", default: []].append(cpu / Double(requests))
    }
}

@MainActor func perHop(_ with: String, _ without: String) -> Double {
    (median(samples[with]!) - median(samples[without]!)) / Double(hops)
}

func format(_ value: Double) -> String { String(format: "%8.1f", value) }

print("sluice-microbench: \(requests) requests per case, median of \(rounds) rounds, \(hops) no-op middleware into MockTransport")
print("")
print("| case | ns per request (wall) | ns per request (CPU) | ns per middleware hop |")
print("|---|---:|---:|---:|")
print("| 0 middleware, tracing off | \(format(median(samples["base"]!))) | \(format(median(samples["baseCPU"]!))) | – |")
print("| 10 middleware, tracing off | \(format(median(samples["chain"]!))) | \(format(median(samples["chainCPU"]!))) | \(format(perHop("chain", "base"))) |")
print("| 0 middleware, tracing on | \(format(median(samples["baseTraced"]!))) | \(format(median(samples["baseTracedCPU"]!))) | – |")
print("| 10 middleware, tracing on | \(format(median(samples["chainTraced"]!))) | \(format(median(samples["chainTracedCPU"]!))) | \(format(perHop("chainTraced", "baseTraced"))) |")
print("")
let hop = perHop("chain", "base")
print("per-hop cost with tracing off: \(String(format: "%.1f", hop)) ns (target < 100 ns): \(hop < 100 ? "met" : "NOT met")")
