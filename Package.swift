// swift-tools-version:6.1
// Sluice: an HTTP client for Swift on Linux, built as an ordered chain of middleware in front of a
// libcurl transport. Each middleware is a module and library product of its own.
//
// Products are what ships: the libraries, the `sluice` command and the `new-middleware` plugin.
// The examples, the fuzz driver and the executables that only tests run are targets without
// products (SwiftPM builds them here; a package that depends on Sluice never sees them). The
// benchmarks are a package of their own in Benchmarks/.
//
// The core and every middleware module depend on no outside package. The integrations with the
// Swift server ecosystem (swift-http-types, swift-openapi-runtime, swift-log, swift-metrics,
// swift-distributed-tracing) are modules of their own, each behind a package trait that is off by
// default: a package that depends on Sluice without naming a trait resolves, fetches and builds
// none of those packages. `make` builds here with every trait on (`--enable-all-traits`).
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

// MARK: - Products

let libraries = [
    "Sluice", "SluiceCurl", "SluiceHeaders", "SluiceURLEncoding", "SluiceSigning", "SluiceGzip", "SluiceLogging",
    "SluiceRetry", "SluiceCache", "SluiceCacheRedis", "SluiceReachability", "SluiceHUD", "SluiceOutbox",
    "SluiceDownload", "SluiceMultipart", "SluiceXML", "SluiceEncryption", "SluiceServerSentEvents", "SluiceStandard", "SluiceTesting",
    "SluiceResilience", "SluiceRateLimitRedis",
    // The integrations (each needs its trait; see `traits` below).
    "SluiceHTTPTypes", "SluiceOpenAPI", "SluiceSwiftLog", "SluiceMetrics", "SluiceTracing",
]

let products: [Product] =
    libraries.map { .library(name: $0, targets: [$0]) } + [
        .executable(name: "sluice", targets: ["SluiceCLI"]),
        .plugin(name: "NewMiddleware", targets: ["NewMiddleware"]),
    ]

// MARK: - Traits and the outside packages only the integrations use

// One trait per integration, all off by default. A consumer turns one on where it names Sluice:
// `.package(path: "../Sluice", traits: ["OpenAPI"])` (or its URL and version, the same way).
let traits: Set<Trait> = [
    .trait(name: "HTTPTypes", description: "SluiceHTTPTypes: requests, responses and fields to and from swift-http-types"),
    .trait(
        name: "OpenAPI", description: "SluiceOpenAPI: a ClientTransport that runs generated OpenAPI clients through the chain",
        enabledTraits: ["HTTPTypes"]),
    .trait(name: "SwiftLog", description: "SluiceSwiftLog: LoggingMiddleware writes to a swift-log Logger"),
    .trait(name: "Metrics", description: "SluiceMetrics: MetricsMiddleware records each call through swift-metrics"),
    .trait(name: "Tracing", description: "SluiceTracing: a span per call and per attempt through swift-distributed-tracing"),
]

let dependencies: [Package.Dependency] = [
    .package(url: "https://github.com/apple/swift-http-types", from: "1.5.1"),
    .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.10.1"),
    .package(url: "https://github.com/apple/swift-log", from: "1.13.2"),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.10.0"),
    .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.4.0"),
]

/// `product` of `package`, linked only when `trait` is on: so a consumer without the trait never
/// resolves the package.
func product(_ product: String, in package: String, when trait: String) -> Target.Dependency {
    .product(name: product, package: package, condition: .when(traits: [trait]))
}

// MARK: - C libraries (Debian's -dev packages) and shims

let cModules: [Target] = [
    // libcurl, and typed wrappers for its variadic curl_easy_setopt and its macros.
    .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
    .target(name: "CCurlShim", dependencies: ["CCurl"]),
    // zlib, and a shim for its macro init functions.
    .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
    .target(name: "CZlibShim", dependencies: ["CZlib"]),
    // The brotli decoder (libbrotli-dev) and Zstandard (libzstd-dev): the libraries libcurl links.
    .systemLibrary(name: "CBrotli", pkgConfig: "libbrotlidec", providers: [.apt(["libbrotli-dev"])]),
    .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
    // libcrypto (libssl-dev): hashes, HMAC.
    .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
    // SQLite (libsqlite3-dev), for the cache's SQLite store and the outbox.
    .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    // hiredis (libhiredis-dev). No pkgConfig: hiredis.pc's -D_FILE_OFFSET_BITS=64 is a flag SwiftPM
    // refuses (with a warning on every build), and the header and library are on the default paths.
    .systemLibrary(name: "CHiredis"),
    // ThreadSanitizer annotations, no-ops outside `make test-tsan`.
    .target(name: "CSluiceTSan"),
]

// MARK: - The core and the transport

let core: [Target] = [
    // Values, Middleware, HTTPTransport, Pipeline, Client, SluiceError, Redaction.
    .target(name: "Sluice", dependencies: ["CSluiceTSan"], swiftSettings: strict),
    // CurlTransport: the libcurl terminal handler.
    .target(name: "SluiceCurl", dependencies: ["Sluice", "CCurl", "CCurlShim"], swiftSettings: strict),
    // One SQLite connection type for the cache and the outbox (package access; it ships inside them).
    .target(name: "SluiceSQLite", dependencies: ["Sluice", "CSQLite"], swiftSettings: strict),
    // One pool of hiredis connections for the Redis cache store and the Redis rate-limit store
    // (package access; it ships inside them).
    .target(name: "SluiceRedis", dependencies: ["Sluice", "CHiredis"], swiftSettings: strict),
]

// MARK: - Middleware and the modules around them

let modules: [Target] = [
    // Fixed and computed headers, bearer tokens with single-flight refresh, common parameters.
    .target(name: "SluiceHeaders", dependencies: ["Sluice"], swiftSettings: strict),
    // Base URL joining, typed query and form parameters, RFC 3986 encoding.
    .target(name: "SluiceURLEncoding", dependencies: ["Sluice"], swiftSettings: strict),
    // A Signer protocol, HMAC parameter signing, AWS SigV4, OAuth 1.0a.
    .target(name: "SluiceSigning", dependencies: ["Sluice", "CCrypto"], swiftSettings: strict),
    // gzip request bodies, decode gzip and deflate responses, with limits.
    .target(name: "SluiceGzip", dependencies: ["Sluice", "CZlib", "CZlibShim", "CBrotli", "CZstd"], swiftSettings: strict),
    .target(name: "SluiceEncryption", dependencies: ["Sluice", "CCrypto"], swiftSettings: strict),
    // Debug logging with SLUICE_LOG, redaction, copy as curl, JSON lines, HAR.
    .target(name: "SluiceLogging", dependencies: ["Sluice"], swiftSettings: strict),
    // Retry policy with backoff, Retry-After and a shared budget.
    .target(name: "SluiceRetry", dependencies: ["Sluice"], swiftSettings: strict),
    // An RFC 9111 cache with the app policies, over a CacheStore (memory, SQLite, or your own).
    .target(name: "SluiceCache", dependencies: ["Sluice", "SluiceSQLite", "CSQLite", "CCrypto"], swiftSettings: strict),
    // RedisCacheStore, one cache shared by a fleet; its own module, so only its users link hiredis.
    .target(name: "SluiceCacheRedis", dependencies: ["Sluice", "SluiceCache", "SluiceRedis"], swiftSettings: strict),
    // A netlink reachability monitor, a host probe, the gate middleware.
    .target(name: "SluiceReachability", dependencies: ["Sluice"], swiftSettings: strict),
    .target(name: "SluiceResilience", dependencies: ["Sluice"], swiftSettings: strict),
    // RedisRateLimitStore, one rate limit shared by a fleet; its own module, so only its users link hiredis.
    .target(name: "SluiceRateLimitRedis", dependencies: ["Sluice", "SluiceResilience", "SluiceRedis"], swiftSettings: strict),
    // An activity tracker without flicker, ordered presenter calls, a terminal HUD.
    .target(name: "SluiceHUD", dependencies: ["Sluice"], swiftSettings: strict),
    // Durable offline writes with idempotency keys, replayed when reachable.
    .target(name: "SluiceOutbox", dependencies: ["Sluice", "SluiceSQLite", "SluiceReachability", "CSQLite"], swiftSettings: strict),
    // Downloads to a file that pause, resume (Range + If-Range) and check a SHA-256.
    .target(name: "SluiceDownload", dependencies: ["Sluice", "CCrypto"], swiftSettings: strict),
    // multipart/form-data bodies, files streamed from disk.
    .target(name: "SluiceMultipart", dependencies: ["Sluice"], swiftSettings: strict),
    // XML responses as a small element tree; its own module so apps without XML never link libxml2.
    .target(name: "SluiceXML", dependencies: ["Sluice"], swiftSettings: strict),
    // text/event-stream: a WHATWG parser and a stream of events that reconnects with Last-Event-ID.
    .target(name: "SluiceServerSentEvents", dependencies: ["Sluice"], swiftSettings: strict),
    // The ready-made stack: Client.standard(baseURL:cache:auth:) with the default middleware.
    .target(
        name: "SluiceStandard",
        dependencies: [
            "Sluice", "SluiceCurl", "SluiceHeaders", "SluiceURLEncoding", "SluiceSigning", "SluiceGzip", "SluiceLogging", "SluiceRetry",
            "SluiceCache", "SluiceReachability", "SluiceHUD",
        ], swiftSettings: strict),
    // The test kit: MockTransport, MiddlewareHarness, MockWebServer.
    .target(name: "SluiceTesting", dependencies: ["Sluice"], swiftSettings: strict),
]

// MARK: - Integrations with the Swift server ecosystem (each behind its trait)

let integrations: [Target] = [
    // Sluice's HTTPRequest, HTTPResponse and HTTPFields to and from swift-http-types', both ways.
    .target(
        name: "SluiceHTTPTypes", dependencies: ["Sluice", product("HTTPTypes", in: "swift-http-types", when: "HTTPTypes")],
        swiftSettings: strict),
    // OpenAPITransport: the ClientTransport of swift-openapi-runtime over a Sluice Client.
    .target(
        name: "SluiceOpenAPI",
        dependencies: [
            "Sluice", "SluiceHTTPTypes", product("OpenAPIRuntime", in: "swift-openapi-runtime", when: "OpenAPI"),
            product("HTTPTypes", in: "swift-http-types", when: "OpenAPI"),
        ], swiftSettings: strict),
    // LogSink.logger: LoggingMiddleware's records to a swift-log Logger, with metadata.
    .target(
        name: "SluiceSwiftLog", dependencies: ["Sluice", "SluiceLogging", product("Logging", in: "swift-log", when: "SwiftLog")],
        swiftSettings: strict),
    // MetricsMiddleware: counts, durations, bytes, retries and cache results through swift-metrics.
    .target(
        name: "SluiceMetrics", dependencies: ["Sluice", product("Metrics", in: "swift-metrics", when: "Metrics")], swiftSettings: strict),
    // TracingMiddleware and AttemptTracingMiddleware: spans per call and per attempt, context injected.
    .target(
        name: "SluiceTracing", dependencies: ["Sluice", product("Tracing", in: "swift-distributed-tracing", when: "Tracing")],
        swiftSettings: strict),
]

// MARK: - The sluice command

let commandLine: [Target] = [
    // Its parser and runner are a library, so they have tests.
    .target(
        name: "SluiceCommandLine",
        dependencies: [
            "Sluice", "SluiceCurl", "SluiceCache", "SluiceRetry", "SluiceGzip", "SluiceHeaders", "SluiceSigning",
            "SluiceLogging", "SluiceHUD", "SluiceMultipart", "SluiceDownload",
        ], swiftSettings: strict),
    .executableTarget(name: "SluiceCLI", dependencies: ["SluiceCommandLine"], swiftSettings: strict),
    .plugin(
        name: "NewMiddleware",
        capability: .command(
            intent: .custom(verb: "new-middleware", description: "Write the skeleton of a new middleware module and its tests"),
            permissions: [.writeToPackageDirectory(reason: "writes Sources/<Module> and Tests/<Module>Tests")]
        )
    ),
]

// MARK: - Examples (each builds and runs in `make test`; `make demo` runs the tour)

let examples: [Target] = [
    .executableTarget(
        name: "sluice-quickstart", dependencies: ["Sluice", "SluiceLogging", "SluiceTesting"],
        path: "Examples/Quickstart", swiftSettings: strict),
    .executableTarget(
        name: "sluice-tour",
        dependencies: [
            "Sluice", "SluiceCache", "SluiceCurl", "SluiceGzip", "SluiceHUD", "SluiceLogging", "SluiceReachability",
            "SluiceRetry", "SluiceSigning", "SluiceTesting",
        ],
        path: "Examples/Tour", swiftSettings: strict
    ),
    .executableTarget(
        name: "sluice-example-custom-pipeline",
        dependencies: ["Sluice", "SluiceCache", "SluiceHeaders", "SluiceLogging", "SluiceRetry", "SluiceTesting"],
        path: "Examples/CustomPipeline", swiftSettings: strict),
    .executableTarget(
        name: "sluice-example-debug-logging", dependencies: ["Sluice", "SluiceLogging", "SluiceTesting"],
        path: "Examples/DebugLogging", swiftSettings: strict),
    // A company's own middleware module, with its own tests, and a program that uses it.
    .target(name: "AcmeSession", dependencies: ["Sluice"], path: "Examples/InHouseMiddleware/Sources/AcmeSession", swiftSettings: strict),
    .testTarget(
        name: "AcmeSessionTests", dependencies: ["AcmeSession", "Sluice", "SluiceTesting"],
        path: "Examples/InHouseMiddleware/Tests/AcmeSessionTests", swiftSettings: strict),
    .executableTarget(
        name: "sluice-example-in-house", dependencies: ["AcmeSession", "Sluice", "SluiceLogging", "SluiceTesting"],
        path: "Examples/InHouseMiddleware/Sources/InHouseDemo", swiftSettings: strict),
]

// MARK: - Test support, and programs only the tests run (Tests/Support, Tests/Tools, Tests/Fuzz)

let testTools: [Target] = [
    // The repo's own test helpers: interop servers, built products, timing, blocking waits, ports.
    .target(name: "SluiceTestSupport", dependencies: ["Sluice"], path: "Tests/Support", swiftSettings: strict),
    // Processes sharing one SQLite or Redis cache, for the cache's multi-process tests.
    .executableTarget(
        name: "sluice-cache-stress", dependencies: ["Sluice", "SluiceCache", "SluiceCacheRedis", "SluiceCurl"],
        path: "Tests/Tools/sluice-cache-stress", swiftSettings: strict),
    // Queues writes in an outbox from a process of its own, for the outbox's crash tests.
    .executableTarget(
        name: "sluice-outbox-helper", dependencies: ["Sluice", "SluiceOutbox"],
        path: "Tests/Tools/sluice-outbox-helper", swiftSettings: strict),
    // One process of a fleet sharing a rate limit through Redis, for the fleet tests.
    .executableTarget(
        name: "sluice-ratelimit-helper", dependencies: ["Sluice", "SluiceCurl", "SluiceResilience", "SluiceRateLimitRedis"],
        path: "Tests/Tools/sluice-ratelimit-helper", swiftSettings: strict),
    // The reachability monitor and gate inside a network namespace.
    .executableTarget(
        name: "sluice-reachability-probe", dependencies: ["Sluice", "SluiceReachability"],
        path: "Tests/Tools/sluice-reachability-probe", swiftSettings: strict),
    // An upload or a download in a process of its own (peak memory, kill and resume).
    .executableTarget(
        name: "sluice-transfer-probe", dependencies: ["Sluice", "SluiceCurl", "SluiceDownload", "SluiceMultipart", "SluiceEncryption", "SluiceGzip"],
        path: "Tests/Tools/sluice-transfer-probe", swiftSettings: strict),
    // The libFuzzer targets (`make fuzz`), and a replay mode that `make test` runs over their seed
    // corpora. The C driver calls libFuzzer only in fuzz builds.
    .target(name: "CSluiceFuzzDriver", path: "Tests/Fuzz/CDriver"),
    .executableTarget(
        name: "sluice-fuzz",
        dependencies: [
            "CSluiceFuzzDriver", "Sluice", "SluiceCache", "SluiceRetry", "SluiceURLEncoding", "SluiceGzip",
            "SluiceTesting", "SluiceLogging", "SluiceCommandLine", "SluiceXML", "SluiceRedis", "SluiceResilience",
            "SluiceServerSentEvents", "SluiceMultipart", "SluiceEncryption", "SluiceCurl",
        ],
        path: "Tests/Fuzz/Driver", swiftSettings: strict
    ),
]

// MARK: - Tests (Tests/<Module>Tests)

func tests(_ module: String, _ dependencies: [Target.Dependency] = []) -> Target {
    .testTarget(
        name: module + "Tests", dependencies: [.target(name: module), "Sluice", "SluiceTesting", "SluiceTestSupport"] + dependencies,
        swiftSettings: strict)
}

let testTargets: [Target] = [
    .testTarget(name: "SluiceTests", dependencies: ["Sluice", "SluiceTesting", "SluiceTestSupport"], swiftSettings: strict),
    tests("SluiceCurl", ["SluiceGzip", "sluice-transfer-probe"]),
    .testTarget(name: "SluiceTestingTests", dependencies: ["SluiceTesting", "Sluice", "SluiceTestSupport"], swiftSettings: strict),
    tests("SluiceHeaders", ["SluiceCurl"]),
    tests("SluiceURLEncoding", ["SluiceCurl"]),
    tests("SluiceSigning", ["SluiceCurl"]),
    tests("SluiceGzip", ["SluiceCurl", "CZlib", "CZstd", "sluice-transfer-probe"]),
    tests("SluiceEncryption", ["SluiceCurl", "SluiceGzip", "SluiceSigning", "SluiceLogging", "SluiceCache", "sluice-transfer-probe"]),
    tests("SluiceLogging", ["SluiceCurl", "SluiceRetry"]),
    tests("SluiceRetry", ["SluiceCurl", "SluiceResilience"]),
    tests("SluiceCache", ["SluiceCacheRedis", "SluiceCurl", "SluiceDownload", "SluiceHeaders", "SluiceSigning", "CSQLite", "sluice-cache-stress"]),
    tests("SluiceCacheRedis", ["SluiceCache", "SluiceCurl", "sluice-cache-stress"]),
    tests("SluiceReachability", ["SluiceCurl", "sluice-reachability-probe"]),
    tests("SluiceResilience", ["SluiceCurl", "SluiceRetry"]),
    tests("SluiceRateLimitRedis", ["SluiceResilience", "SluiceCurl", "sluice-ratelimit-helper"]),
    tests("SluiceHUD"),
    tests("SluiceOutbox", ["SluiceCurl", "SluiceEncryption", "SluiceReachability", "SluiceRetry", "CSQLite", "sluice-outbox-helper"]),
    tests("SluiceDownload", ["SluiceCurl", "sluice-transfer-probe"]),
    tests("SluiceMultipart", ["SluiceCurl", "sluice-transfer-probe"]),
    tests("SluiceXML"),
    tests("SluiceServerSentEvents", ["SluiceCurl"]),
    tests("SluiceStandard", ["SluiceCurl", "SluiceCache", "SluiceHUD", "SluiceLogging", "SluiceSigning"]),
    tests(
        "SluiceCommandLine",
        [
            "SluiceCLI", "SluiceCurl", "SluiceCache", "SluiceHeaders", "SluiceLogging", "SluiceRetry", "SluiceSigning", "SluiceGzip", "SluiceHUD",
            "SluiceOutbox", "SluiceURLEncoding",
        ]),
    tests("SluiceHTTPTypes", [product("HTTPTypes", in: "swift-http-types", when: "HTTPTypes")]),
    tests(
        "SluiceOpenAPI",
        [
            "SluiceCurl", "SluiceCache", "SluiceRetry", "SluiceLogging", product("OpenAPIRuntime", in: "swift-openapi-runtime", when: "OpenAPI"),
            product("HTTPTypes", in: "swift-http-types", when: "OpenAPI"),
        ]),
    tests("SluiceSwiftLog", ["SluiceLogging", product("Logging", in: "swift-log", when: "SwiftLog")]),
    tests(
        "SluiceMetrics",
        [
            "SluiceCache", "SluiceResilience", "SluiceRetry", product("Metrics", in: "swift-metrics", when: "Metrics"),
            product("MetricsTestKit", in: "swift-metrics", when: "Metrics"),
        ]),
    tests(
        "SluiceTracing",
        [
            "SluiceCurl", "SluiceResilience", "SluiceRetry", product("Tracing", in: "swift-distributed-tracing", when: "Tracing"),
            product("InMemoryTracing", in: "swift-distributed-tracing", when: "Tracing"),
        ]),
    .testTarget(name: "SluiceFuzzTests", dependencies: ["SluiceTesting", "SluiceTestSupport", "sluice-fuzz"], swiftSettings: strict),
]

let package = Package(
    name: "Sluice",
    products: products,
    traits: traits,
    dependencies: dependencies,
    targets: cModules + core + modules + integrations + commandLine + examples + testTools + testTargets,
    swiftLanguageModes: [.v6]
)
