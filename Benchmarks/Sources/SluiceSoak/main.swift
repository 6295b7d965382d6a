// sluice-soak: a long run through every middleware against nginx, watching memory and file
// descriptors (`make soak`; too slow for `make test`).
//
//   sluice-soak BASE_URL [--requests N] [--concurrency N] [--warmup N] [--samples N]
//
// One client with the full default chain: HUD, logging (.basic, to a counting sink), headers, URL
// encoding, cache (SQLite, 8 MiB), retry, the reachability gate (netlink), gzip and HMAC signing,
// over CurlTransport. Requests mix cache misses, hits and 304 revalidations of gzip answers, with
// --concurrency in flight. After --warmup requests, resident memory and open descriptors are
// sampled --samples times; the run passes when every request succeeded, peak RSS stays within
// ±10% of the first sample, and the open descriptors do not climb: the last quarter of samples
// stays within 2 of the first quarter (connections and SQLite's files come and go by a few, a leak
// grows with the requests). Left out: the HAR recorder, which keeps every exchange in memory by
// design.
import Foundation
import Sluice
import SluiceCache
import SluiceCurl
import SluiceGzip
import SluiceHUD
import SluiceHeaders
import SluiceLogging
import SluiceReachability
import SluiceRetry
import SluiceSigning
import SluiceURLEncoding
import Synchronization

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("sluice-soak: \(message)\n".utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard let base = arguments.first.flatMap(URL.init(string:)), base.scheme != nil else {
    fail("usage: sluice-soak BASE_URL [--requests N] [--concurrency N] [--warmup N] [--samples N]")
}
arguments.removeFirst()
var options = ["--requests": 1_000_000, "--concurrency": 16, "--warmup": 100_000, "--samples": 50]
while arguments.count >= 2, options[arguments[0]] != nil, let value = Int(arguments[1]), value > 0 {
    options[arguments[0]] = value
    arguments.removeFirst(2)
}
guard arguments.isEmpty else { fail("unknown arguments: \(arguments.joined(separator: " "))") }
let total = options["--requests"]!, concurrency = options["--concurrency"]!
let warmup = min(options["--warmup"]!, total / 2), samples = options["--samples"]!

/// Resident set size in KiB and open descriptors, from /proc. `/proc/self/statm` is read with C's
/// stdio: Foundation's whole-file reads leak a buffer per read of a file whose size shows as 0.
func resources() -> (rssKiB: Int, descriptors: Int) {
    var rssKiB = 0
    if let file = fopen("/proc/self/statm", "r") {
        var line = [CChar](repeating: 0, count: 256)
        if fgets(&line, Int32(line.count), file) != nil {
            let fields = String(cString: line).split(separator: " ")
            if fields.count > 1, let pages = Int(fields[1]) { rssKiB = pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024 }
        }
        fclose(file)
    }
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    return (rssKiB, descriptors)
}

/// Counts what the HUD is asked to show.
let hudShows = Atomic<Int>(0)
struct CountingPresenter: HUDPresenter {
    func show(tip: String?) async { hudShows.add(1, ordering: .relaxed) }
    func update(progress: TransferProgress) async {}
    func dismiss() async {}
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-soak-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

let logLines = Atomic<Int>(0)
var builder = Client.Builder(transport: CurlTransport(), configuration: .init(baseURL: base))
builder.add(HUDMiddleware(presenter: CountingPresenter()))
builder.add(LoggingMiddleware(level: .basic, sink: .closure { _ in logLines.add(1, ordering: .relaxed) }))
builder.add(HeadersMiddleware(configuration: .init(fields: ["X-App": "sluice-soak/1", "Accept": "application/json"])))
builder.add(URLEncodingMiddleware())
builder.add(
    CacheMiddleware(
        store: try SQLiteCacheStore(
            path: folder.appendingPathComponent("cache.sqlite").path,
            configuration: .init(maximumSize: 8 << 20))))
builder.add(RetryMiddleware())
do { builder.add(ReachabilityGateMiddleware(monitor: try LinuxReachabilityMonitor())) } catch { fail("netlink monitor: \(error)") }
builder.add(GzipMiddleware())
builder.add(SigningMiddleware(signer: HMACParameterSigner(configuration: .init(key: Data("soak-secret".utf8)))))
let client = builder.build()
print("sluice-soak: \(total) requests, \(concurrency) in flight, against \(base.absoluteString)")
print("chain: " + builder.middlewares.map { "\(type(of: $0))" }.joined(separator: " -> ") + " -> CurlTransport")

/// Request `index`: three in four are /small.json with one of 2,000 pages (misses, then hits for
/// the 60 s nginx allows), one in four is a gzip answer that must be revalidated (a 304 each time
/// after the first).
func request(_ index: Int) -> HTTPRequest {
    var request = HTTPRequest(url: URL(string: index % 4 == 0 ? "gzip/small.json" : "small.json", relativeTo: base)!.absoluteURL)
    request.queryParameters = ["page": .integer(index % 4 == 0 ? index % 200 : index % 2_000)]
    return request
}

let next = Atomic<Int>(0)
let errors = Atomic<Int>(0)
let sources = Mutex([String: Int]())
let expectedBody = Mutex<Data?>(nil)
let samplesTaken = Mutex([(done: Int, rssKiB: Int, descriptors: Int)]())
let sampleEvery = max(1, (total - warmup) / samples)
let started = ContinuousClock.now

await withTaskGroup(of: Void.self) { group in
    for _ in 0..<concurrency {
        group.addTask {
            var local: [String: Int] = [:]
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < total else { break }
                do {
                    let response = try await client.send(request(index))
                    let body = response.body
                    let matches = expectedBody.withLock { expected in
                        if expected == nil { expected = body }
                        return expected == body
                    }
                    if response.status != .ok || !matches {
                        errors.add(1, ordering: .relaxed)
                        if errors.load(ordering: .relaxed) <= 5 { print("request \(index): \(response.status), \(body.count) bytes") }
                    }
                    local[response.source.rawValue, default: 0] += 1
                } catch {
                    if errors.add(1, ordering: .relaxed).newValue <= 5 { print("request \(index): \(error)") }
                }
                let done = index + 1
                if done >= warmup, (done - warmup) % sampleEvery == 0 {
                    let (rss, descriptors) = resources()
                    samplesTaken.withLock { $0.append((done, rss, descriptors)) }
                }
            }
            sources.withLock { for (key, count) in local { $0[key, default: 0] += count } }
        }
    }
}

let elapsed = started.duration(to: .now)
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
let taken = samplesTaken.withLock { $0 }.sorted { $0.done < $1.done }
guard let first = taken.first else { fail("no samples taken") }
let peak = taken.map(\.rssKiB).max()!, lowest = taken.map(\.rssKiB).min()!
let fds = taken.map(\.descriptors)
let rssDrift = Double(peak - first.rssKiB) / Double(first.rssKiB) * 100
let rssDip = Double(first.rssKiB - lowest) / Double(first.rssKiB) * 100
let failed = errors.load(ordering: .relaxed)
print(
    String(
        format: "%d requests in %.1f s (%.0f/s); sources: %@", total, seconds, Double(total) / seconds,
        sources.withLock { $0 }.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))
print("log lines \(logLines.load(ordering: .relaxed)); HUD shows \(hudShows.load(ordering: .relaxed)); errors \(failed)")
print("after warm-up (\(warmup) requests), \(taken.count) samples:")
print(String(format: "  RSS: first %d KiB, peak %d KiB (%+.1f%%), lowest %d KiB (%.1f%% below)", first.rssKiB, peak, rssDrift, lowest, rssDip))
print("  open descriptors: first \(first.descriptors), min \(fds.min()!), max \(fds.max()!)")
for sample in taken where sample.done == taken.first?.done || sample.done == taken.last?.done || sample.done % (sampleEvery * 10) == 0 {
    print(String(format: "    at %8d: %7d KiB, %3d fds", sample.done, sample.rssKiB, sample.descriptors))
}
var verdicts: [String] = []
if failed > 0 { verdicts.append("\(failed) requests failed") }
if rssDrift > 10 || rssDip > 10 { verdicts.append("RSS moved more than 10% after warm-up") }
let quarter = max(1, fds.count / 4)
let early = fds.prefix(quarter).sorted()[quarter / 2], late = fds.suffix(quarter).sorted()[quarter / 2]
print("  descriptors, median of the first and last quarter of samples: \(early) -> \(late)")
if late - early > 2 { verdicts.append("open descriptors climbed from \(early) to \(late)") }
print(verdicts.isEmpty ? "soak: passed" : "soak: FAILED: " + verdicts.joined(separator: "; "))
exit(verdicts.isEmpty ? 0 : 1)
