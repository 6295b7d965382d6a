// sluice-bench: Sluice beside raw libcurl in C and URLSession, in one run, against a real server.
//
//     Tests/Servers/nginx.sh up /tmp/bench && swift run -c release sluice-bench "$(cat /tmp/bench/nginx.url)"
//     swift run -c release sluice-bench URL [--json] [--rounds N] [--scale F] [--clients a,b] [--scenarios a,b]
//                                           [--event-threads N] [--peer PATH]
//     swift run -c release sluice-bench FILE-URL --download PATH     (one download to disk)
//     swift run -c release sluice-bench URL --cache [--python PATH]   (SluiceCache beside requests-cache)
//     swift run -c release sluice-bench --middleware [--scenarios logging,gzip]
//                                        (each middleware's cost, or only those whose names contain a
//                                         word given; gzip beside zlib in C)
//
// URL serves /small.json (1 KB) and /big.bin (1 MiB), as Tests/Servers/nginx.sh and
// ../shared/bench/nginx-up.sh do. Scenarios: sequential (1 KB), concurrent16 (1 KB, 16 in
// flight), concurrent128 (1 KB, 128 in flight), body1mib (1 MiB, sequential), and with `--tls-url URL
// --tls-ca FILE` https16 (1 KB, 16 in flight over HTTPS, HTTP/2 multiplexed on one connection;
// only the rows make bench-peers runs). Clients: libcurl-c (raw libcurl from C, a C target built
// with the same flags), libcurl-c-keep (the same, keeping every response's header lines and body in
// fresh buffers, as curlbench's keep mode: the fair reference), curl-transport (CurlTransport
// alone), pipeline (a Pipeline of nine pass-through middleware over CurlTransport), client (what
// users run: a Client from the builder with every middleware at its default place, HUD and logging
// on with counting sinks, the cache bypassed (it runs, but neither serves nor stores: a reload with
// Cache-Control: no-store), over CurlTransport() as configured by default, called
// with client.send from ordinary tasks; `--only NAME` keeps one middleware of it and the builder's
// defaults, `--leave-out a,b` drops some), client-bare (`Client.Builder(transport:
// CurlTransport()).build()`, the builder's defaults alone, called with client.get from ordinary
// tasks), client-cache-hit (the same with a memory cache, every request a hit; not in the default
// list), client-bare-et and client-et (client-bare and client with each call on the transport's
// event thread, Client.Configuration.prefersTransportExecutor, over one event thread per core; not in
// the default list), client-bare-on-et (client-bare-et called from tasks that already run on its
// event threads: no hop at all; not in the default list), curl-transport-pool (CurlTransport alone
// called from ordinary tasks: one hop in and one out, the floor of any call made from the pool; not
// in the default list), urlsession (FoundationNetworking), ahc (AsyncHTTPClient 1.33.1, with `--peer PATH` to
// sluice-bench-ahc from Benchmarks/Peers, `make bench-peers`: run in a process of its own, which
// reports its own CPU time; the table then gives ratios to it too). `--as-sent CLIENT` makes the C clients send the head
// that CLIENT (client, client-bare or curl-transport, with the same --only) sent: its request target
// and fields, so libcurl's own cost of the bytes a middleware adds is measured apart. curl-transport
// and pipeline run one event thread per core, with the 16 concurrent callers spread over them;
// pipeline-1thread is the same pipeline on the default single event thread (table only, not in
// --json, whose client names are fixed). Each round runs
// every client on every scenario, rotating the order; the median req/s over rounds is reported,
// with the ratio to libcurl-c and the client's CPU time per request.
import BenchmarkSupport
import CSluiceBench
import Dispatch
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

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// MARK: Arguments

struct Options {
    var json = false
    var rounds = 5
    var scale = 1.0
    var base: URL?
    var clients = ["libcurl-c", "libcurl-c-keep", "curl-transport", "pipeline", "client", "client-bare", "pipeline-1thread", "urlsession"]
    var scenarios: [String]?
    var download: String?
    var eventThreads = ProcessInfo.processInfo.activeProcessorCount
    var cache = false
    var python: String?
    var redis: (host: String, port: Int)?
    var middleware = false
    /// Middleware the `client` row leaves out (`--leave-out hud,reachability`), to find what costs.
    var leaveOut: Set<String> = []
    /// The `client` row with one middleware of the default stack and the builder's defaults (the
    /// redirect follower), `--only gzip`; `--only none` leaves the redirect follower out too.
    var only: String?
    /// The C clients send the head this client row sent (`--as-sent client --only signing`): the
    /// same request target and fields, so C pays libcurl's cost for the same bytes.
    var asSent: String?
    /// sluice-bench-ahc's binary (`--peer PATH`, `make bench-peers`): adds the `ahc` row.
    var peer: String?
    /// An https origin serving the same files over HTTP/2 (`--tls-url URL`), and the CA that
    /// signed it (`--tls-ca FILE`): adds the `https16` scenario.
    var tlsBase: URL?
    var tlsCA: String?
}

/// The default stack's middleware, by the names `--leave-out` and `--only` take.
let stackNames = ["hud", "logging", "headers", "urlencoding", "cache", "retry", "reachability", "gzip", "signing", "redirects"]

func parseOptions(_ raw: [String]) -> Options {
    var options = Options()
    var index = 0
    while index < raw.count {
        switch raw[index] {
        case "--json": options.json = true
        case "--rounds" where index + 1 < raw.count: index += 1; options.rounds = Int(raw[index]) ?? options.rounds
        case "--scale" where index + 1 < raw.count: index += 1; options.scale = Double(raw[index]) ?? options.scale
        case "--clients" where index + 1 < raw.count: index += 1; options.clients = raw[index].split(separator: ",").map(String.init)
        case "--download" where index + 1 < raw.count: index += 1; options.download = raw[index]
        case "--cache": options.cache = true
        case "--middleware": options.middleware = true
        case "--python" where index + 1 < raw.count: index += 1; options.python = raw[index]
        case "--redis" where index + 1 < raw.count:
            index += 1
            let parts = raw[index].split(separator: ":")
            if parts.count == 2, let port = Int(parts[1]) { options.redis = (String(parts[0]), port) }
        case "--event-threads" where index + 1 < raw.count: index += 1; options.eventThreads = max(1, Int(raw[index]) ?? options.eventThreads)
        case "--scenarios" where index + 1 < raw.count: index += 1; options.scenarios = raw[index].split(separator: ",").map(String.init)
        case "--leave-out" where index + 1 < raw.count: index += 1; options.leaveOut = Set(raw[index].split(separator: ",").map(String.init))
        case "--as-sent" where index + 1 < raw.count: index += 1; options.asSent = raw[index]
        case "--peer" where index + 1 < raw.count: index += 1; options.peer = raw[index]
        case "--tls-url" where index + 1 < raw.count: index += 1; options.tlsBase = URL(string: raw[index])
        case "--tls-ca" where index + 1 < raw.count: index += 1; options.tlsCA = raw[index]
        case "--only" where index + 1 < raw.count:
            index += 1
            options.only = raw[index]
            options.leaveOut = Set(stackNames).subtracting(raw[index] == "none" ? [] : [raw[index], "redirects"])
        default: options.base = URL(string: raw[index])
        }
        index += 1
    }
    return options
}

let options = parseOptions(Array(CommandLine.arguments.dropFirst()))
let json = options.json, rounds = max(1, options.rounds), scale = options.scale
// `--middleware` needs no server; everything else measures against URL.
guard let base = options.middleware ? URL(string: "http://127.0.0.1/") : options.base,
    base.scheme == "http" || base.scheme == "https"
else {
    FileHandle.standardError.write(
        Data(
            ("usage: sluice-bench URL [--json] [--rounds N] [--scale F] [--clients a,b] [--scenarios a,b] [--event-threads N]\n"
                + "       sluice-bench URL --cache [--python PATH] [--redis HOST:PORT] | sluice-bench --middleware [--rounds N]\n").utf8))
    exit(2)
}

// `--download FILE`: fetch URL into FILE through CurlTransport and report its size, for measuring
// peak memory with `/usr/bin/time -v` (the body streams to disk; memory must stay flat).
// MARK: Scenarios and clients

struct Scenario: Sendable {
    let name: String
    let path: String
    let count: Int
    let concurrency: Int
    let expectedBytes: Int
    /// Over `--tls-url`: HTTPS, HTTP/2 (ALPN), one connection multiplexed.
    var tls = false
}

let allScenarios = [
    Scenario(name: "sequential", path: "small.json", count: Int(4000 * scale), concurrency: 1, expectedBytes: -1),
    Scenario(name: "concurrent16", path: "small.json", count: Int(16000 * scale), concurrency: 16, expectedBytes: -1),
    Scenario(name: "concurrent128", path: "small.json", count: Int(16000 * scale), concurrency: 128, expectedBytes: -1),
    Scenario(name: "body1mib", path: "big.bin", count: Int(400 * scale), concurrency: 1, expectedBytes: 1 << 20),
    Scenario(name: "https16", path: "small.json", count: Int(8000 * scale), concurrency: 16, expectedBytes: -1, tls: true),
]
// https16 runs only with an https origin (`--tls-url`, `--tls-ca`), as `make bench-peers` gives.
let scenarios = allScenarios.filter { (options.scenarios?.contains($0.name) ?? true) && (!$0.tls || options.tlsBase != nil) }

/// A middleware that only passes the request on: what the chain itself costs.
struct PassThrough: Middleware {
    func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        try await next(request, context)
    }
}

struct BenchFailure: Error, CustomStringConvertible { let description: String }

/// One event thread per core (`--event-threads N` to change): concurrent callers are spread over
/// them, each task keeping to one.
let benchConfiguration: CurlTransport.Configuration = {
    var configuration = CurlTransport.Configuration.default
    configuration.eventThreads = options.eventThreads
    return configuration
}()
let curlTransport = CurlTransport(configuration: benchConfiguration)
let pipelineTransport = CurlTransport(configuration: benchConfiguration)
let pipeline = Pipeline(middlewares: Array(repeating: PassThrough(), count: 9), transport: pipelineTransport)
/// The same pipeline over a single event thread, as the default configuration has.
let pipelineTransport1 = CurlTransport()
let pipeline1 = Pipeline(middlewares: Array(repeating: PassThrough(), count: 9), transport: pipelineTransport1)
/// Counts what a HUD is asked to show.
final class CountingHUD: HUDPresenter {
    let shows = Atomic<Int>(0)
    func show(tip: String?) async { shows.add(1, ordering: .relaxed) }
    func update(progress: TransferProgress) async {}
    func dismiss() async {}
}

let loggedLines = Atomic<Int>(0)
/// What users run: the builder's client with every middleware at its default place, over the
/// transport's default configuration.
let userClient = makeUserClient(CurlTransport())

/// The `client` row's client over `transport`.
func makeUserClient(_ transport: CurlTransport, configuration: Client.Configuration = .default) -> Client {
    var builder = Client.Builder(transport: transport, configuration: configuration)
    builder.environment = [:]
    let out = options.leaveOut
    if !out.contains("hud") { builder.add(HUDMiddleware(presenter: CountingHUD())) }
    if !out.contains("logging") { builder.add(LoggingMiddleware(level: .basic, sink: .closure { _ in loggedLines.add(1, ordering: .relaxed) })) }
    if !out.contains("headers") { builder.add(HeadersMiddleware(configuration: .init(fields: ["Accept": "application/json"]))) }
    if !out.contains("urlencoding") { builder.add(URLEncodingMiddleware()) }
    if !out.contains("cache") { builder.add(CacheMiddleware(store: MemoryCacheStore())) }
    if !out.contains("retry") { builder.add(RetryMiddleware()) }
    if !out.contains("reachability"), let monitor = try? LinuxReachabilityMonitor() { builder.add(ReachabilityGateMiddleware(monitor: monitor)) }
    if !out.contains("gzip") { builder.add(GzipMiddleware()) }
    if !out.contains("signing") { builder.add(SigningMiddleware(signer: HMACParameterSigner(configuration: .init(key: Data("bench-key".utf8))))) }
    if out.contains("redirects") { builder.remove(RedirectMiddleware.self) }
    return builder.build()
}

/// The `client` row's request, as `run` sends it.
@Sendable func userRequest(_ url: URL) throws -> HTTPRequest {
    var request = HTTPRequest(url: url)
    if !options.leaveOut.contains("cache") {
        // Bypassed: read past and not stored (a memory store kept every 1 MiB body).
        request.cachePolicy = .reloadIgnoringCache
        try request.headers.set(name: "Cache-Control", value: "no-store")
    }
    return request
}

/// What `client` (`client`, `client-bare` or `curl-transport`) put on the wire for a request to
/// `url`: the request target and every field but Host (curl writes Host itself), as curl header
/// lines. Read from the head curl recorded (`recordsRequestHeads`).
func headAsSent(by client: String, _ url: URL) async throws -> (target: String, fields: [String]) {
    var configuration = CurlTransport.Configuration.default
    configuration.recordsRequestHeads = true
    let transport = CurlTransport(configuration: configuration)
    let response: HTTPResponse
    switch client {
    case "client": response = try await makeUserClient(transport).send(try userRequest(url))
    case "client-bare": response = try await Client.Builder(transport: transport).build().get(url.absoluteString)
    case "curl-transport": response = try await transport.send(HTTPRequest(url: url), context: RequestContext())
    default: throw BenchFailure(description: "--as-sent takes client, client-bare or curl-transport, not \(client)")
    }
    guard let head = response.metrics?.requestHead else { throw BenchFailure(description: "\(client) recorded no request head") }
    let lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
    let requestLine = lines.first?.split(separator: " ") ?? []
    guard requestLine.count == 3 else { throw BenchFailure(description: "\(client) sent the request line \(lines.first ?? "")") }
    let fields = lines.dropFirst().filter { !$0.lowercased().hasPrefix("host:") }.map { line in
        // curl's form for a field with an empty value is "Name;".
        line.hasSuffix(":") ? String(line.dropLast()) + ";" : line
    }
    return (String(requestLine[1]), fields)
}

/// The URL and fields the C clients send to `url`: `url` itself and none, or with `--as-sent`
/// what that client sent.
func cRequest(_ url: URL) async throws -> (url: String, fields: [String]) {
    guard let client = options.asSent else { return (url.absoluteString, []) }
    let sent = try await headAsSent(by: client, url)
    var origin = URLComponents(url: url, resolvingAgainstBaseURL: false)!
    origin.path = ""
    origin.query = nil
    return (origin.string! + sent.target, sent.fields)
}

/// The builder's defaults and nothing more (the redirect follower), as a user's first client is.
let bareClient = Client.Builder(transport: CurlTransport()).build()
/// `client-bare-et` and `client-et`: the same clients with each call on the transport's event
/// thread (`Client.Configuration.prefersTransportExecutor`).
let onEventThread = Client.Configuration(prefersTransportExecutor: true)
let bareTransportET = CurlTransport(configuration: benchConfiguration)
let bareClientET = Client.Builder(transport: bareTransportET, configuration: onEventThread).build()
let userClientET = makeUserClient(CurlTransport(configuration: benchConfiguration), configuration: onEventThread)

/// The clients of the https16 scenario: the same, over transports that trust `--tls-ca` (HTTP/2
/// over TLS is CurlTransport's default for https).
struct TLSClients {
    let transport: CurlTransport
    let bare: Client
    let user: Client

    init(ca: String) {
        var configuration = benchConfiguration
        configuration.tls.caFile = ca
        transport = CurlTransport(configuration: configuration)
        var plain = CurlTransport.Configuration.default
        plain.tls.caFile = ca
        bare = Client.Builder(transport: CurlTransport(configuration: plain)).build()
        user = makeUserClient(CurlTransport(configuration: plain))
    }
}
let tlsClients = options.tlsCA.map(TLSClients.init)
/// The builder's defaults and a memory cache: every request after the first is a hit (nginx
/// answers `max-age=60`).
let cachingClient: Client = {
    var builder = Client.Builder(transport: CurlTransport())
    builder.add(CacheMiddleware(store: MemoryCacheStore()))
    return builder.build()
}()

let session: URLSession = {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = 16
    configuration.urlCache = nil
    return URLSession(configuration: configuration)
}()

@Sendable func check(_ status: Int, _ bytes: Int, _ scenario: Scenario) throws {
    guard status == 200, scenario.expectedBytes < 0 || bytes == scenario.expectedBytes, bytes > 0 else {
        throw BenchFailure(description: "\(scenario.name): status \(status), \(bytes) bytes")
    }
}

/// Runs `count` requests with `concurrency` in flight, each through `one`; worker `i` runs on
/// `executors[i % executors.count]` when executors are given.
func drive(
    _ scenario: Scenario, count: Int, on executors: [any TaskExecutor] = [], _ one: @escaping @Sendable () async throws -> Void
) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for worker in 0..<scenario.concurrency {
            let run: @Sendable () async throws -> Void = {
                for _ in stride(from: worker, to: count, by: scenario.concurrency) { try await one() }
            }
            // Callers without a preference are ordinary tasks: `addTask(executorPreference: nil)`
            // would give each one an (empty) preference record, which every hop then looks up
            // under the task's status lock, as no ordinary caller's task does.
            if executors.isEmpty {
                group.addTask(operation: run)
            } else {
                group.addTask(executorPreference: executors[worker % executors.count], operation: run)
            }
        }
        try await group.waitForAll()
    }
}

/// One client's run of one scenario: its wall time, and its CPU time when it ran in another
/// process (`nil`: this process's, measured around the run).
struct Measured {
    let seconds: Double
    var cpuSeconds: Double?
}

/// The https16 scenario: the C clients trusting `--tls-ca` (`SLUICE_BENCH_CA`), the peer, and
/// the Swift rows over transports that trust it.
func runTLS(_ client: String, _ url: URL, _ scenario: Scenario, count: Int) async throws -> Measured {
    guard let tls = tlsClients, let ca = options.tlsCA else { throw BenchFailure(description: "https16 needs --tls-url and --tls-ca") }
    switch client {
    case "libcurl-c", "libcurl-c-keep":
        setenv("SLUICE_BENCH_CA", ca, 1)
        defer { unsetenv("SLUICE_BENCH_CA") }
        var bytes = 0
        let seconds = sluice_bench_libcurl(url.absoluteString, Int32(count), Int32(scenario.concurrency), client == "libcurl-c" ? 0 : 1, &bytes, nil, 0)
        guard seconds > 0 else { throw BenchFailure(description: "\(client): a transfer failed over https") }
        return Measured(seconds: seconds)
    case "ahc":
        guard let peer = options.peer else { throw BenchFailure(description: "the ahc row needs --peer PATH (make bench-peers)") }
        return try await runPeer(peer, url, scenario, count: count, ca: ca)
    case "curl-transport", "curl-transport-pool", "client-bare", "client":
        let start = ContinuousClock.now
        try await drive(scenario, count: count, on: client == "curl-transport" ? tls.transport.executors : []) {
            let response =
                switch client {
                case "curl-transport", "curl-transport-pool": try await tls.transport.send(HTTPRequest(url: url), context: RequestContext())
                case "client-bare": try await tls.bare.get(url.absoluteString)
                default: try await tls.user.send(try userRequest(url))
                }
            try check(response.status.code, response.body.count, scenario)
        }
        return Measured(seconds: start.duration(to: .now).timeInterval)
    default:
        throw BenchFailure(
            description: "\(client) does not run https16 (libcurl-c, libcurl-c-keep, ahc, curl-transport, curl-transport-pool, client-bare, client do)")
    }
}

/// AsyncHTTPClient's run of `scenario` (`ahc`), in sluice-bench-ahc's own process, which reports
/// its wall and CPU time for the timed part; it warms up first, as this process did.
func runPeer(_ path: String, _ url: URL, _ scenario: Scenario, count: Int, ca: String? = nil) async throws -> Measured {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments =
        [
            url.absoluteString, "--count", String(count), "--concurrency", String(scenario.concurrency), "--expected", String(scenario.expectedBytes),
            "--warm-up", String(max(16, scenario.count / 20)),
        ] + (ca.map { ["--tls-ca", $0] } ?? [])
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let line = try await Task.detached { String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }.value
    process.waitUntilExit()
    let figures = line.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
    guard process.terminationStatus == 0, figures.count == 2 else {
        throw BenchFailure(description: "ahc: sluice-bench-ahc exited with \(process.terminationStatus), printing \(line)")
    }
    return Measured(seconds: figures[0], cpuSeconds: figures[1])
}

/// Seconds for one client on one scenario.
func run(_ client: String, _ scenario: Scenario, count: Int) async throws -> Measured {
    let url = ((scenario.tls ? options.tlsBase : nil) ?? base).appendingPathComponent(scenario.path)
    if scenario.tls { return try await runTLS(client, url, scenario, count: count) }
    if client == "ahc" {
        guard let peer = options.peer else { throw BenchFailure(description: "the ahc row needs --peer PATH (make bench-peers)") }
        return try await runPeer(peer, url, scenario, count: count)
    }
    let start = ContinuousClock.now
    switch client {
    case "libcurl-c", "libcurl-c-keep":
        var bytes = 0
        let keep: Int32 = client == "libcurl-c-keep" ? 1 : 0
        let (target, fields) = try await cRequest(url)
        let lines = fields.map { strdup($0) }
        defer { for line in lines { free(line) } }
        let seconds = lines.map { UnsafePointer($0) }.withUnsafeBufferPointer { fields in
            sluice_bench_libcurl(target, Int32(count), Int32(scenario.concurrency), keep, &bytes, fields.baseAddress, Int32(fields.count))
        }
        guard seconds > 0 else { throw BenchFailure(description: "\(client): a transfer failed") }
        return Measured(seconds: seconds)
    case "client", "client-et":
        let client = client == "client" ? userClient : userClientET
        try await drive(scenario, count: count) {
            let response = try await client.send(try userRequest(url))
            try check(response.status.code, response.body.count, scenario)
        }
    case "client-bare", "client-bare-et", "client-cache-hit":
        let client = client == "client-bare" ? bareClient : client == "client-bare-et" ? bareClientET : cachingClient
        try await drive(scenario, count: count) {
            let response = try await client.get(url.absoluteString)
            try check(response.status.code, response.body.count, scenario)
        }
    case "client-bare-on-et":
        // Callers that already run on the event threads (a handler the transport's thread runs):
        // the call stays there and makes no hop at all.
        try await drive(scenario, count: count, on: bareTransportET.executors) {
            let response = try await bareClientET.get(url.absoluteString)
            try check(response.status.code, response.body.count, scenario)
        }
    case "curl-transport-pool":
        // The transport alone from ordinary tasks: one hop to the event thread and one back, the
        // floor of any call made from the cooperative pool.
        try await drive(scenario, count: count) {
            let response = try await curlTransport.send(HTTPRequest(url: url), context: RequestContext())
            try check(response.status.code, response.body.count, scenario)
        }
    case "curl-transport":
        try await drive(scenario, count: count, on: curlTransport.executors) {
            let response = try await curlTransport.send(HTTPRequest(url: url), context: RequestContext())
            try check(response.status.code, response.body.count, scenario)
        }
    case "pipeline":
        try await drive(scenario, count: count, on: pipelineTransport.executors) {
            let response = try await pipeline.send(HTTPRequest(url: url))
            try check(response.status.code, response.body.count, scenario)
        }
    case "pipeline-1thread":
        try await drive(scenario, count: count, on: pipelineTransport1.executors) {
            let response = try await pipeline1.send(HTTPRequest(url: url))
            try check(response.status.code, response.body.count, scenario)
        }
    default:
        try await drive(scenario, count: count) {
            let (data, response) = try await session.data(for: URLRequest(url: url))
            try check((response as? HTTPURLResponse)?.statusCode ?? 0, data.count, scenario)
        }
    }
    return Measured(seconds: start.duration(to: .now).timeInterval)
}

func cpuSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

// MARK: Measuring

/// `--download FILE`: fetch the URL into FILE through CurlTransport and report its size, for
/// measuring peak memory with `/usr/bin/time -v` (the body streams to disk; memory stays flat).
func download(to path: String) async throws -> Int32 {
    var request = HTTPRequest(url: base)
    request.responseBodyFile = URL(fileURLWithPath: path)
    let start = ContinuousClock.now
    let response = try await CurlTransport().send(request, context: RequestContext())
    let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? -1
    print("downloaded \(size) bytes (status \(response.status.code)) to \(path) in \(start.duration(to: .now))")
    return response.status.isSuccess ? 0 : 1
}

let clients = options.peer == nil || options.clients.contains("ahc") ? options.clients : options.clients + ["ahc"]

func measure() async throws -> Int32 {
    var rps: [String: [Double]] = [:]
    var cpu: [String: [Double]] = [:]

    // Warm up: connections, caches, the event threads.
    for scenario in scenarios {
        // sluice-bench-ahc warms up in each of its runs.
        for client in clients where client != "ahc" { _ = try await run(client, scenario, count: max(16, scenario.count / 20)) }
    }

    for round in 0..<rounds {
        for scenario in scenarios {
            let order = clients.indices.map { clients[($0 + round) % clients.count] }
            for client in order {
                // URLSession is about 5-20× slower: fewer requests keep a round short; req/s is per second.
                let count = client == "urlsession" ? max(scenario.concurrency * 4, scenario.count / 5) : scenario.count
                let cpuStart = cpuSeconds()
                let measured = try await run(client, scenario, count: count)
                let key = "\(client)/\(scenario.name)"
                rps[key, default: []].append(Double(count) / measured.seconds)
                cpu[key, default: []].append((measured.cpuSeconds ?? (cpuSeconds() - cpuStart)) / Double(count) * 1e6)
            }
        }
    }

    if json {
        for scenario in scenarios {
            for client in clients where client != "pipeline-1thread" {
                let value = median(rps["\(client)/\(scenario.name)"]!)
                let cpuMicroseconds = median(cpu["\(client)/\(scenario.name)"]!)
                print(
                    #"{"client": "\#(client)", "scenario": "\#(scenario.name)", "rps": \#(String(format: "%.1f", value)), "cpu_us": \#(String(format: "%.1f", cpuMicroseconds))}"#
                )
            }
        }
    } else {
        guard clients.contains("libcurl-c") else {
            for key in rps.keys.sorted() { print(key, String(format: "%.0f req/s, %.1f µs CPU/req", median(rps[key]!), median(cpu[key]!))) }
            return 0
        }
        print("sluice-bench against \(base.absoluteString): median of \(rounds) rounds, libcurl \(CurlTransport.curlVersion)")
        print("")
        // Ratios to libcurl-c-keep when it ran (the fair reference: it keeps what a client returns).
        let referenceName = clients.contains("libcurl-c-keep") ? "libcurl-c-keep" : "libcurl-c"
        // With the peer: ratios to AsyncHTTPClient too (above 1× in req/s and below in CPU is ahead).
        let peer = clients.contains("ahc")
        print(
            "| scenario | client | req/s | × \(referenceName) | client CPU µs/req | CPU × \(referenceName) |"
                + (peer ? " × ahc | CPU × ahc |" : ""))
        print("|---|---|---:|---:|---:|---:|" + (peer ? "---:|---:|" : ""))
        for scenario in scenarios {
            let reference = median(rps["\(referenceName)/\(scenario.name)"]!)
            let referenceCPU = median(cpu["\(referenceName)/\(scenario.name)"]!)
            let ahc = rps["ahc/\(scenario.name)"].map(median), ahcCPU = cpu["ahc/\(scenario.name)"].map(median)
            for client in clients {
                let key = "\(client)/\(scenario.name)"
                let value = median(rps[key]!)
                let cpuMicroseconds = median(cpu[key]!)
                let toPeer = ahc.flatMap { ahc in ahcCPU.map { String(format: " %.2f× | %.2f× |", value / ahc, cpuMicroseconds / $0) } } ?? ""
                print(
                    String(
                        format: "| %@ | %@ | %.0f | %.2f× | %.1f | %.2f× |", scenario.name, client, value, value / reference, cpuMicroseconds,
                        cpuMicroseconds / referenceCPU) + toPeer)
            }
        }
        if let pipeline16 = rps["pipeline/concurrent16"].map(median), let session16 = rps["urlsession/concurrent16"].map(median) {
            print("")
            print(String(format: "pipeline vs urlsession, concurrent16: %.1f×", pipeline16 / session16))
        }
    }
    return 0
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

// MARK: Main

// A synchronous main (SynchronousMain), not top-level `await`: valgrind cannot run Dispatch's
// main-queue wait. With debug info stripped (valgrind 3.19 cannot read Swift 6.3's), callgrind
// counts instructions, which a noisy machine cannot blur (`make bench-instructions`).
SynchronousMain.run("sluice-bench") {
    if let path = options.download { return try await download(to: path) }
    if options.middleware { return try await middlewareBenchmark(rounds: rounds, scale: scale, json: json, only: options.scenarios) }
    if options.cache {
        return try await cacheBenchmark(base: base, python: options.python, redis: options.redis, rounds: rounds, scale: scale, json: json)
    }
    return try await measure()
}
