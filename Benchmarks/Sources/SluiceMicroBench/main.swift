// sluice-microbench: the cost of the chain itself, with no network.
//
// Sends N requests (default 1,000,000) through 10 no-op middleware into a MockTransport, with
// tracing off and on, and through 0 middleware as the baseline. Per-hop cost is
// (time with 10 − time with 0) / (10 × N): the transport's own cost cancels out. The N requests
// of each case are split into ROUNDS rounds (default 20) that alternate between the cases, and
// the median over rounds is printed, because machines are noisy.
//
//     swift run -c release sluice-microbench [N] [ROUNDS]
//
// Machines here are noisy, so it can also count instructions, which noise cannot blur:
// `--instructions` runs itself under callgrind (valgrind) with 0 and 10 middleware at two request
// counts and prints instructions per middleware hop from the differences.
//
//     swift run -c release sluice-microbench --instructions
import BenchmarkSupport
import Dispatch
import Foundation
import Sluice
import SluiceTesting

struct NoOpMiddleware: Middleware {
    func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        try await next(request, context)
    }
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let flags = Set(CommandLine.arguments.dropFirst().filter { $0.hasPrefix("--") })
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

/// Sends `count` requests through `pipeline` with tracing off and nothing else: what callgrind
/// counts in `--instructions` mode (`--run-only chain|base COUNT`).
func runOnly(_ pipeline: Pipeline, count: Int) async throws {
    let context = RequestContext()
    for _ in 0..<count { _ = try await pipeline.send(request, context: context) }
}

/// This executable without its debug information (`strip --strip-debug`), which valgrind 3.19
/// cannot read for Swift 6.3 binaries ("Possibly corrupted debuginfo file"): callgrind runs it.
let strippedCopy: URL = {
    let copy = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-microbench-\(UUID().uuidString)")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["strip", "--strip-debug", "-o", copy.path, CommandLine.arguments[0]]
    try? process.run()
    process.waitUntilExit()
    return copy
}()

/// Runs this executable under callgrind and returns the instructions it executed.
func countInstructions(_ which: String, _ count: Int) throws -> Double {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-microbench-\(UUID().uuidString).out")
    defer { try? FileManager.default.removeItem(at: output) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
        "valgrind", "--tool=callgrind", "--callgrind-out-file=\(output.path)",
        strippedCopy.path, "--run-only", which, String(count),
    ]
    let pipe = Pipe()
    process.standardError = pipe
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard let line = text.split(separator: "\n").first(where: { $0.contains("Collected :") }),
        let number = Double(line.split(separator: ":").last!.filter(\.isNumber))
    else {
        throw POSIXError(.EIO)
    }
    return number
}

func main() async throws {
    if let index = CommandLine.arguments.firstIndex(of: "--run-only") {
        let which = CommandLine.arguments[index + 1], count = Int(CommandLine.arguments[index + 2])!
        try await runOnly(which == "chain" ? chain : baseline, count: count)
        return
    }
    if flags.contains("--instructions") {
        let small = 2_000, large = 12_000
        let chainSmall = try countInstructions("chain", small), chainLarge = try countInstructions("chain", large)
        let baseSmall = try countInstructions("base", small), baseLarge = try countInstructions("base", large)
        let perRequestChain = (chainLarge - chainSmall) / Double(large - small)
        let perRequestBase = (baseLarge - baseSmall) / Double(large - small)
        print("instructions per request: \(Int(perRequestBase)) with 0 middleware, \(Int(perRequestChain)) with \(hops)")
        print("instructions per middleware hop (tracing off): \(Int((perRequestChain - perRequestBase) / Double(hops)))")
        try? FileManager.default.removeItem(at: strippedCopy)
        return
    }
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
    print(
        String(
            format: "per-hop cost with tracing off: %.1f ns (middle half of rounds %.1f–%.1f ns; target < 100 ns): %@",
            hop, sorted[rounds / 4], sorted[(3 * rounds) / 4], hop < 100 ? "met" : "NOT met"))
}

// A synchronous main (SynchronousMain), not top-level `await`, so valgrind can run it.
SynchronousMain.run("sluice-microbench") {
    try await main()
    return 0
}
