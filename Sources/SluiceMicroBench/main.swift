// sluice-microbench: the cost of the chain itself, with no network.
//
// Sends N requests (default 1,000,000) through 10 no-op middleware into a MockTransport, with
// tracing off and on, and through 0 middleware as the baseline. Per-hop cost is
// (time with 10 − time with 0) / (10 × N): the transport's own cost cancels out. The N requests
// of each case are split into ROUNDS rounds (default 20) that alternate between the cases, and
// the median over rounds is printed, because machines are noisy.
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
let rounds = max(1, arguments.dropFirst().first ?? 20)
let perRound = max(1, requests / rounds)
let hops = 10

let transport = MockTransport.successful(configuration: .init(recordsRequests: false))
let request = HTTPRequest(url: URL(string: "http://127.0.0.1/bench")!)
let baseline = Pipeline(middlewares: [], transport: transport)
let chain = Pipeline(middlewares: Array(repeating: NoOpMiddleware(), count: hops), transport: transport)

/// CPU nanoseconds per request for `count` sequential sends (CPU time is much steadier than wall
/// time on a shared machine; the loop never blocks, so the two agree when the machine is quiet).
func measure(_ pipeline: Pipeline, tracing: Bool, count: Int) async throws -> Double {
    var context = RequestContext()
    context.isTracing = tracing
    let before = processCPUNanoseconds()
    for _ in 0..<count {
        let response = try await pipeline.send(request, context: context)
        precondition(response.status == .ok && (response.trace != nil) == tracing)
    }
    return (processCPUNanoseconds() - before) / Double(count)
}

func processCPUNanoseconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) * 1e9 + Double(ts.tv_nsec)
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

// Warm up caches, the task allocator and the branch predictor.
for pipeline in [baseline, chain] {
    for tracing in [false, true] { _ = try await measure(pipeline, tracing: tracing, count: 20_000) }
}

// Each round measures the four cases back to back, so slow drifts of the machine hit all four
// alike; the per-hop figure of a round is (chain − baseline) / hops, and the median over rounds is
// printed.
var perRequest: [String: [Double]] = [:]
var perHopOff: [Double] = []
var perHopOn: [Double] = []
for _ in 0..<rounds {
    let base = try await measure(baseline, tracing: false, count: perRound)
    let ten = try await measure(chain, tracing: false, count: perRound)
    let baseTraced = try await measure(baseline, tracing: true, count: perRound)
    let tenTraced = try await measure(chain, tracing: true, count: perRound)
    perRequest["base", default: []].append(base)
    perRequest["chain", default: []].append(ten)
    perRequest["baseTraced", default: []].append(baseTraced)
    perRequest["chainTraced", default: []].append(tenTraced)
    perHopOff.append((ten - base) / Double(hops))
    perHopOn.append((tenTraced - baseTraced) / Double(hops))
}

func format(_ value: Double) -> String { String(format: "%8.1f", value) }

print("sluice-microbench: \(perRound * rounds) requests per case in \(rounds) rounds, \(hops) no-op middleware into MockTransport, CPU time, medians")
print("")
print("| case | ns per request | ns per middleware hop |")
print("|---|---:|---:|")
print("| 0 middleware, tracing off | \(format(median(perRequest["base"]!))) | – |")
print("| 10 middleware, tracing off | \(format(median(perRequest["chain"]!))) | \(format(median(perHopOff))) |")
print("| 0 middleware, tracing on | \(format(median(perRequest["baseTraced"]!))) | – |")
print("| 10 middleware, tracing on | \(format(median(perRequest["chainTraced"]!))) | \(format(median(perHopOn))) |")
print("")
let hop = median(perHopOff)
let sorted = perHopOff.sorted()
print(String(format: "per-hop cost with tracing off: %.1f ns (middle half of rounds %.1f–%.1f ns; target < 100 ns): %@",
             hop, sorted[rounds / 4], sorted[(3 * rounds) / 4], hop < 100 ? "met" : "NOT met"))
