// sluice-bench-ahc: one benchmark scenario through AsyncHTTPClient, for sluice-bench's `ahc` row
// (`make bench-peers`). sluice-bench starts it once per scenario and round, as it runs its own
// clients, and reads one line back.
//
//     sluice-bench-ahc URL --count N --concurrency C [--expected BYTES] [--warm-up N] [--tls-ca FILE]
//
// It sends `--warm-up` requests first (connections opened, NIO's threads started), then `--count`
// GETs of URL with `--concurrency` in flight from ordinary tasks, each body collected whole, as
// the Sluice rows do, and prints "SECONDS CPU_SECONDS" for that part alone (CPU of the whole
// process: the callers and NIO's event loops). The pool may open as many connections per host
// as there are requests in flight, as CurlTransport does by default (AHC's own default is 8).
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL

#if canImport(Glibc)
    import Glibc
#endif

struct Failure: Error, CustomStringConvertible { let description: String }

/// What the command line asks for.
struct Options: Sendable {
    let url: String
    let count: Int
    let concurrency: Int
    let expected: Int
    let warmUp: Int
    let ca: String?

    init(_ arguments: [String]) {
        func option(_ name: String) -> String? {
            guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
            return arguments[index + 1]
        }
        url = arguments.first { !$0.hasPrefix("--") && URL(string: $0)?.scheme != nil } ?? ""
        count = Int(option("--count") ?? "") ?? 1_000
        concurrency = max(1, Int(option("--concurrency") ?? "") ?? 1)
        expected = Int(option("--expected") ?? "") ?? -1
        warmUp = Int(option("--warm-up") ?? "") ?? max(16, count / 20)
        ca = option("--tls-ca")
    }
}

func cpuSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// `total` GETs of the URL through `client`, `options.concurrency` at a time.
func drive(_ client: HTTPClient, _ options: Options, _ total: Int) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for worker in 0..<options.concurrency {
            group.addTask {
                for _ in stride(from: worker, to: total, by: options.concurrency) {
                    let response = try await client.execute(HTTPClientRequest(url: options.url), timeout: .seconds(30))
                    let body = try await response.body.collect(upTo: 4 << 20)
                    guard response.status.code == 200, body.readableBytes > 0, options.expected < 0 || body.readableBytes == options.expected else {
                        throw Failure(description: "status \(response.status.code), \(body.readableBytes) bytes")
                    }
                }
            }
        }
        try await group.waitForAll()
    }
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
guard URL(string: options.url)?.scheme?.hasPrefix("http") == true else {
    FileHandle.standardError.write(Data("usage: sluice-bench-ahc URL --count N --concurrency C [--expected BYTES] [--warm-up N] [--tls-ca FILE]\n".utf8))
    exit(2)
}

var configuration = HTTPClient.Configuration()
configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(8, options.concurrency)
if let ca = options.ca {
    var tls = TLSConfiguration.makeClientConfiguration()
    tls.trustRoots = .file(ca)
    configuration.tlsConfiguration = tls
}
let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)

var exitCode: Int32 = 0
do {
    try await drive(client, options, options.warmUp)
    let cpuStart = cpuSeconds()
    let start = ContinuousClock.now
    try await drive(client, options, options.count)
    let elapsed = start.duration(to: .now)
    let cpu = cpuSeconds() - cpuStart
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print(String(format: "%.6f %.6f", seconds, cpu))
} catch {
    FileHandle.standardError.write(Data("sluice-bench-ahc: \(error)\n".utf8))
    exitCode = 1
}
try? await client.shutdown()
exit(exitCode)
