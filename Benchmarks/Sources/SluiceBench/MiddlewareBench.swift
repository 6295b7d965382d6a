// sluice-bench --middleware: what each request-shaping middleware costs per request without I/O
// (over a transport that answers at once), and SluiceGzip beside zlib driven from C on a 1 MiB JSON
// body, in one run. No server is needed.
import CSluiceBench
import Foundation
import Sluice
import SluiceCache
import SluiceGzip
import SluiceHeaders
import SluiceLogging
import SluiceMetrics
import SluiceRateLimitRedis
import SluiceResilience
import SluiceRetry
import SluiceSigning
import SluiceTracing
import SluiceURLEncoding

/// Answers every request at once with a small JSON body.
struct InstantTransport: HTTPTransport {
    let response: HTTPResponse

    func send(_ request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
        var response = response
        response.request = request
        return response
    }
}

/// Gives each call a deadline 10 s away, for the stages outside it that send one.
struct Deadlined: Middleware {
    func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        var context = context
        context.deadline = .now + .seconds(10)
        return try await next(request, context)
    }
}

/// Nanoseconds per request through `pipeline`, `count` requests made by `make`.
func nanosecondsPerRequest(_ pipeline: Pipeline, count: Int, _ make: () -> HTTPRequest) async throws -> Double {
    let start = ContinuousClock.now
    for _ in 0..<count { _ = try await pipeline.send(make()) }
    let elapsed = start.duration(to: .now)
    return elapsed.timeInterval * 1e9 / Double(count)
}

/// `only`: run just the cases whose names contain one of these words (no case).
func middlewareBenchmark(rounds: Int, scale: Double, json: Bool, only: [String]? = nil) async throws -> Int32 {
    let count = max(1_000, Int(20_000 * scale))
    let small = HTTPResponse(
        status: .ok, headers: ["Content-Type": "application/json", "Cache-Control": "max-age=600"],
        body: Data(String(repeating: "{\"k\":1},", count: 128).utf8))
    let gzipped = HTTPResponse(
        status: .ok, headers: ["Content-Type": "application/json", "Content-Encoding": "gzip"],
        body: try GzipCodec.compress(small.body))
    let url = URL(string: "https://api.example.com/v1/items?page=2")!
    let aws = AWSSigV4Signer(
        accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
        sessionToken: nil, region: "us-east-1", service: "service")
    let oauth = OAuth1Signer(configuration: .init(consumerKey: "key", consumerSecret: "secret", token: "t", tokenSecret: "s"))
    let hmac = HMACParameterSigner(configuration: .init(key: Data("secret".utf8)))

    // What `Client` composes from a builder holding an off logger: SLUICE_LOG unset (pinned empty).
    var builder = Client.Builder(transport: InstantTransport(response: small))
    builder.environment = [:]
    builder.remove(RedirectMiddleware.self)  // measured on its own below
    builder.add(LoggingMiddleware(level: .none, sink: .null))
    let offThroughBuilder = builder.resolvedMiddlewares

    let allCases: [(name: String, middlewares: [any Middleware], response: HTTPResponse, request: @Sendable () -> HTTPRequest)] = [
        (
            "HeadersMiddleware, 2 fields", [HeadersMiddleware(configuration: .init(fields: ["Accept": "application/json", "X-App": "shop/4.2"]))],
            small, { HTTPRequest(url: url) }
        ),
        (
            "AuthTokenMiddleware", [AuthTokenMiddleware(configuration: .init(token: { "token-123" }, refresh: { "token-456" }))],
            small, { HTTPRequest(url: url) }
        ),
        (
            "CommonParametersMiddleware, 3 in the query",
            [CommonParametersMiddleware(configuration: .init(parameters: { [("app_version", "4.2"), ("channel", "store"), ("device", "x")] }))],
            small, { HTTPRequest(url: url) }
        ),
        (
            "URLEncodingMiddleware, 3 parameters",
            [URLEncodingMiddleware()], small,
            {
                var request = HTTPRequest(url: URL(string: "https://api.example.com/v1/items")!)
                request.queryParameters = ["q": "café", "page": 2, "tags": ["a", "b"]]
                return request
            }
        ),
        ("SigningMiddleware, AWS SigV4", [SigningMiddleware(signer: aws)], small, { HTTPRequest(url: url) }),
        ("SigningMiddleware, OAuth 1.0a HMAC-SHA1", [SigningMiddleware(signer: oauth)], small, { HTTPRequest(url: url) }),
        ("SigningMiddleware, HMAC parameters", [SigningMiddleware(signer: hmac)], small, { HTTPRequest(url: url) }),
        ("GzipMiddleware, 1 KB gzip response decoded", [GzipMiddleware()], gzipped, { HTTPRequest(url: url) }),
        ("RedirectMiddleware, a 200 (nothing to follow)", [RedirectMiddleware()], small, { HTTPRequest(url: url) }),
        ("CacheMiddleware, memory-store hit", [CacheMiddleware(store: MemoryCacheStore())], small, { HTTPRequest(url: url) }),
        ("LoggingMiddleware .none, added through Client.Builder (left out)", offThroughBuilder, small, { HTTPRequest(url: url) }),
        ("LoggingMiddleware .none, put in a Pipeline by hand", [LoggingMiddleware(level: .none, sink: .null)], small, { HTTPRequest(url: url) }),
        ("LoggingMiddleware .basic text, null sink", [LoggingMiddleware(level: .basic, sink: .null)], small, { HTTPRequest(url: url) }),
        (
            "LoggingMiddleware .basic JSON lines, null sink", [LoggingMiddleware(level: .basic, sink: .null, format: .jsonLines)],
            small, { HTTPRequest(url: url) }
        ),
        ("LoggingMiddleware .headers text, null sink", [LoggingMiddleware(level: .headers, sink: .null)], small, { HTTPRequest(url: url) }),
        // Resilience at scale, on a healthy host: a closed circuit, an answer before the hedge's
        // delay, a limit not reached, and a deadline sent.
        ("CircuitBreakerMiddleware, circuit closed", [CircuitBreakerMiddleware()], small, { HTTPRequest(url: url) }),
        ("HedgingMiddleware, answered before the delay", [HedgingMiddleware()], small, { HTTPRequest(url: url) }),
        ("ConcurrencyLimitMiddleware, under the limit", [ConcurrencyLimitMiddleware()], small, { HTTPRequest(url: url) }),
        (
            "RateLimitMiddleware, memory store, under the limit",
            [RateLimitMiddleware(configuration: .init(limit: RateLimit(requests: 1_000_000_000, per: .seconds(1))))], small,
            { HTTPRequest(url: url) }
        ),
        ("IdempotencyKeyMiddleware, a POST given its key", [IdempotencyKeyMiddleware()], small, { HTTPRequest(method: .post, url: url) }),
        ("DeadlineHeaderMiddleware, with a stage setting a deadline outside it", [Deadlined(), DeadlineHeaderMiddleware()], small, { HTTPRequest(url: url) }),
        // The integrations, as an app without a backend or a tracer bootstrapped runs them.
        ("MetricsMiddleware, no backend bootstrapped (passes calls on)", [MetricsMiddleware()], small, { HTTPRequest(url: url) }),
        (
            "TracingMiddleware + AttemptTracingMiddleware, no tracer bootstrapped", [TracingMiddleware(), AttemptTracingMiddleware()], small,
            { HTTPRequest(url: url) }
        ),
    ]
    // The fleet's store, when a redis-server is at hand (`make bench-middleware` starts one):
    // one EVAL on 127.0.0.1 a call.
    var withRedis = allCases
    if let host = ProcessInfo.processInfo.environment["SLUICE_REDIS_HOST"],
        let port = ProcessInfo.processInfo.environment["SLUICE_REDIS_PORT"].flatMap(Int.init)
    {
        let store = RedisRateLimitStore(configuration: .init(host: host, port: port, keyPrefix: "sluice-bench:\(UInt64.random(in: 0...UInt64.max)):"))
        withRedis.append(
            (
                "RateLimitMiddleware, Redis store on 127.0.0.1 (one EVAL a call)",
                [RateLimitMiddleware(configuration: .init(limit: RateLimit(requests: 1_000_000_000, per: .seconds(1))), store: store)], small,
                { HTTPRequest(url: url) }
            ))
    }
    let wanted = { (name: String) in only.map { $0.contains { name.localizedCaseInsensitiveContains($0) } } ?? true }
    let cases = withRedis.filter { wanted($0.name) }

    // Paired: each case runs in blocks alternating with the same transport and requests without
    // it, and its cost is the median of the block differences, so drift on a shared machine
    // (which moves both) cancels out instead of landing on whichever case ran in a slow spell.
    var results: [String: [Double]] = [:]
    var baselines: [Double] = []
    let blocks = 10
    for _ in 0..<rounds {
        for item in cases {
            let bare = Pipeline(middlewares: [], transport: InstantTransport(response: item.response))
            let pipeline = Pipeline(middlewares: item.middlewares, transport: InstantTransport(response: item.response))
            _ = try await nanosecondsPerRequest(bare, count: count / blocks, item.request)  // warm up
            _ = try await nanosecondsPerRequest(pipeline, count: count / blocks, item.request)  // (and fill the cache)
            var differences: [Double] = []
            for _ in 0..<blocks {
                let without = try await nanosecondsPerRequest(bare, count: count / blocks, item.request)
                let with = try await nanosecondsPerRequest(pipeline, count: count / blocks, item.request)
                differences.append(with - without)
                baselines.append(without)
            }
            results[item.name, default: []].append(median(differences))
        }
    }
    let baseline = median(baselines)

    // Gzip: SluiceGzip beside zlib from C, 1 MiB of JSON.
    let jsonBody = Data((0..<14_000).map { "{\"id\":\($0),\"name\":\"item \($0)\",\"tags\":[\"a\",\"b\"]}," }.joined().utf8.prefix(1 << 20))
    let packed = try GzipCodec.compress(jsonBody)
    var swiftCompress: [Double] = [], cCompress: [Double] = [], swiftInflate: [Double] = [], cInflate: [Double] = []
    var output = [UInt8](repeating: 0, count: jsonBody.count * 2)
    for _ in 0..<(wanted("gzip") ? rounds : 0) {
        for _ in 0..<3 {
            swiftCompress.append(try seconds { _ = try GzipCodec.compress(jsonBody) })
            cCompress.append(
                try seconds {
                    let size = jsonBody.withUnsafeBytes { input in
                        output.withUnsafeMutableBytes {
                            sluice_bench_gzip(input.bindMemory(to: UInt8.self).baseAddress, input.count, $0.bindMemory(to: UInt8.self).baseAddress, $0.count)
                        }
                    }
                    guard size > 0 else { throw BenchFailure(description: "zlib from C could not compress") }
                })
            swiftInflate.append(try seconds { _ = try GzipCodec.decompress(packed, format: .gzip) })
            cInflate.append(
                try seconds {
                    let size = packed.withUnsafeBytes { input in
                        output.withUnsafeMutableBytes {
                            sluice_bench_gunzip(input.bindMemory(to: UInt8.self).baseAddress, input.count, $0.bindMemory(to: UInt8.self).baseAddress, $0.count)
                        }
                    }
                    guard size == jsonBody.count else { throw BenchFailure(description: "zlib from C inflated \(size) bytes") }
                })
        }
    }
    let megabytes = Double(jsonBody.count) / 1_048_576
    let gzipRows =
        swiftCompress.isEmpty
        ? []
        : [
            ("compress", megabytes / median(swiftCompress), megabytes / median(cCompress)),
            ("decompress", megabytes / median(swiftInflate), megabytes / median(cInflate)),
        ]

    if json {
        for item in cases {
            print(#"{"middleware": "\#(item.name)", "ns_per_request": \#(String(format: "%.0f", median(results[item.name]!)))}"#)
        }
        for (name, swift, c) in gzipRows {
            print(#"{"gzip": "\#(name)", "sluice_mb_s": \#(String(format: "%.1f", swift)), "zlib_c_mb_s": \#(String(format: "%.1f", c))}"#)
        }
        return 0
    }
    print("sluice-bench --middleware: median of \(rounds) rounds, each case \(count) requests in \(blocks) blocks alternating with")
    print("the same requests without it, over a transport that answers at once; cost = median difference")
    print("")
    print("| middleware | ns per request (over the \(String(format: "%.0f", baseline)) ns of the pipeline without it) |")
    print("|---|---:|")
    for item in cases {
        print(String(format: "| %@ | %.0f |", item.name, median(results[item.name]!)))
    }
    guard !gzipRows.isEmpty else { return 0 }
    print("")
    print(String(format: "| 1 MiB JSON (%.1f×  smaller gzipped) | SluiceGzip MB/s | zlib from C MB/s | ratio |", Double(jsonBody.count) / Double(packed.count)))
    print("|---|---:|---:|---:|")
    for (name, swift, c) in gzipRows {
        print(String(format: "| %@ | %.0f | %.0f | %.2f× |", name, swift, c, swift / c))
    }
    return 0
}

func seconds(_ body: () throws -> Void) throws -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = start.duration(to: .now)
    return elapsed.timeInterval
}
