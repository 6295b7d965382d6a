// swift-tools-version:6.0
// Sluice: an HTTP client for Swift on Linux, built as an ordered chain of middleware in front of a
// libcurl transport. Every module is its own target and library product; see DESIGN in README.md.
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Sluice",
    products: [
        .library(name: "Sluice", targets: ["Sluice"]),
        .library(name: "SluiceTesting", targets: ["SluiceTesting"]),
        .library(name: "SluiceCurl", targets: ["SluiceCurl"]),
        .library(name: "SluiceCache", targets: ["SluiceCache"]),
        .library(name: "SluiceCacheRedis", targets: ["SluiceCacheRedis"]),
        .library(name: "SluiceGzip", targets: ["SluiceGzip"]),
        .library(name: "SluiceHeaders", targets: ["SluiceHeaders"]),
        .library(name: "SluiceURLEncoding", targets: ["SluiceURLEncoding"]),
        .library(name: "SluiceSigning", targets: ["SluiceSigning"]),
        .library(name: "SluiceRetry", targets: ["SluiceRetry"]),
        .library(name: "SluiceReachability", targets: ["SluiceReachability"]),
        .library(name: "SluiceOutbox", targets: ["SluiceOutbox"]),
        .library(name: "SluiceHUD", targets: ["SluiceHUD"]),
        .library(name: "SluiceLogging", targets: ["SluiceLogging"]),
        .library(name: "SluiceXML", targets: ["SluiceXML"]),
        .library(name: "SluiceMultipart", targets: ["SluiceMultipart"]),
        .library(name: "SluiceDownload", targets: ["SluiceDownload"]),
        .executable(name: "sluice-microbench", targets: ["SluiceMicroBench"]),
        .executable(name: "sluice-bench", targets: ["SluiceBench"]),
        .executable(name: "sluice-quickstart", targets: ["Quickstart"]),
        .executable(name: "sluice-tour", targets: ["Tour"]),
        .executable(name: "sluice-example-custom-pipeline", targets: ["CustomPipeline"]),
        .executable(name: "sluice-example-in-house", targets: ["InHouseDemo"]),
        .executable(name: "sluice-example-debug-logging", targets: ["DebugLogging"]),
        .executable(name: "sluice-cache-stress", targets: ["SluiceCacheStress"]),
        .executable(name: "sluice-reachability-probe", targets: ["SluiceReachabilityProbe"]),
        .executable(name: "sluice-outbox-helper", targets: ["SluiceOutboxHelper"]),
        .executable(name: "sluice-transfer-probe", targets: ["SluiceTransferProbe"]),
        .executable(name: "sluice-fuzz", targets: ["SluiceFuzz"]),
        .executable(name: "sluice-soak", targets: ["SluiceSoak"]),
        .executable(name: "sluice", targets: ["SluiceCLI"]),
        .library(name: "SluiceCommandLine", targets: ["SluiceCommandLine"]),
        .plugin(name: "NewMiddleware", targets: ["NewMiddleware"]),
    ],
    targets: [
        // The core: values, Middleware, HTTPTransport, Pipeline, Client, SluiceError.
        .target(name: "Sluice", dependencies: ["CSluiceTSan"], swiftSettings: strict),
        // ThreadSanitizer annotations, no-ops outside `make test-tsan`.
        .target(name: "CSluiceTSan"),
        // libcurl (Debian: libcurl4-openssl-dev) and typed wrappers for its variadic C API.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "CCurlShim", dependencies: ["CCurl"]),
        // CurlTransport: the libcurl terminal handler.
        .target(name: "SluiceCurl", dependencies: ["Sluice", "CCurl", "CCurlShim"], swiftSettings: strict),
        // libcrypto (Debian: libssl-dev): SHA-256 and HMAC.
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // SQLite (Debian: libsqlite3-dev), for the cache's default store.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // SluiceCache: an RFC 9111 cache with the seeds' app policies, over a CacheStore.
        .target(name: "SluiceCache", dependencies: ["Sluice", "CSQLite", "CCrypto"], swiftSettings: strict),
        // hiredis (Debian: libhiredis-dev), for the Redis cache store. No pkgConfig: hiredis.pc's
        // -D_FILE_OFFSET_BITS=64 is a flag SwiftPM refuses (with a warning on every build), and the
        // header and library are on the default paths.
        .systemLibrary(name: "CHiredis"),
        // SluiceCacheRedis: RedisCacheStore, one cache shared by a fleet; its own module, so only its users link hiredis.
        .target(name: "SluiceCacheRedis", dependencies: ["Sluice", "SluiceCache", "CHiredis"], swiftSettings: strict),
        // zlib (Debian: zlib1g-dev) and a shim for its macro init functions.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "CZlibShim", dependencies: ["CZlib"]),
        // SluiceGzip: gzip request bodies, decode gzip and deflate responses, with limits.
        .target(name: "SluiceGzip", dependencies: ["Sluice", "CZlib", "CZlibShim"], swiftSettings: strict),
        // SluiceHeaders: fixed and computed headers, bearer tokens with single-flight refresh, common parameters.
        .target(name: "SluiceHeaders", dependencies: ["Sluice"], swiftSettings: strict),
        // SluiceURLEncoding: base URL joining, typed query and form parameters, RFC 3986 encoding.
        .target(name: "SluiceURLEncoding", dependencies: ["Sluice"], swiftSettings: strict),
        // SluiceSigning: a Signer protocol, HMAC parameter signing, AWS SigV4, OAuth 1.0a (libcrypto).
        .target(name: "SluiceSigning", dependencies: ["Sluice", "CCrypto"], swiftSettings: strict),
        // SluiceRetry: retry policy with backoff, Retry-After and a shared budget.
        .target(name: "SluiceRetry", dependencies: ["Sluice"], swiftSettings: strict),
        // SluiceReachability: a netlink reachability monitor, a host probe, the gate middleware.
        .target(name: "SluiceReachability", dependencies: ["Sluice"], swiftSettings: strict),
        // The monitor and gate inside a network namespace, for the reachability tests.
        .executableTarget(name: "SluiceReachabilityProbe", dependencies: ["Sluice", "SluiceReachability"], swiftSettings: strict),
        // SluiceOutbox: durable offline writes with idempotency keys, replayed when reachable.
        .target(name: "SluiceOutbox", dependencies: ["Sluice", "SluiceReachability", "CSQLite"], swiftSettings: strict),
        .executableTarget(name: "SluiceOutboxHelper", dependencies: ["Sluice", "SluiceOutbox"], swiftSettings: strict),
        // SluiceHUD: an activity tracker without flicker, ordered presenter calls, a terminal HUD.
        .target(name: "SluiceHUD", dependencies: ["Sluice"], swiftSettings: strict),
        // SluiceXML: XML responses as a small element tree (FoundationXML's XMLParser), its own
        // module so that apps without XML never link libxml2.
        .target(name: "SluiceXML", dependencies: ["Sluice"], swiftSettings: strict),
        // SluiceMultipart: multipart/form-data bodies, files streamed from disk.
        .target(name: "SluiceMultipart", dependencies: ["Sluice"], swiftSettings: strict),
        // SluiceDownload: downloads to a file that pause, resume (Range + If-Range) and check a SHA-256.
        .target(name: "SluiceDownload", dependencies: ["Sluice", "CCrypto"], swiftSettings: strict),
        // sluice: the command-line client; its parser and runner are a library, so they have tests.
        .target(name: "SluiceCommandLine", dependencies: [
            "Sluice", "SluiceCurl", "SluiceCache", "SluiceRetry", "SluiceGzip", "SluiceHeaders", "SluiceSigning",
            "SluiceLogging", "SluiceHUD", "SluiceMultipart", "SluiceDownload",
        ], swiftSettings: strict),
        .executableTarget(name: "SluiceCLI", dependencies: ["SluiceCommandLine"], swiftSettings: strict),
        // sluice-transfer-probe: an upload or a download in a process of its own, for the tests.
        // sluice-soak: a long run through every middleware against nginx (`make soak`).
        .executableTarget(
            name: "SluiceSoak",
            dependencies: ["Sluice", "SluiceCurl", "SluiceCache", "SluiceGzip", "SluiceHeaders", "SluiceHUD", "SluiceLogging",
                           "SluiceReachability", "SluiceRetry", "SluiceSigning", "SluiceURLEncoding"],
            swiftSettings: strict
        ),
        // sluice-fuzz: the libFuzzer targets under Tests/Fuzz (`make fuzz`), and a replay mode that
        // `make test` runs over their seed corpora. The C driver calls libFuzzer only in fuzz builds.
        .target(name: "CSluiceFuzzDriver", path: "Tests/Fuzz/CDriver"),
        .executableTarget(
            name: "SluiceFuzz",
            dependencies: ["CSluiceFuzzDriver", "Sluice", "SluiceCache", "SluiceRetry", "SluiceURLEncoding", "SluiceGzip",
                           "SluiceTesting", "SluiceLogging", "SluiceCommandLine", "SluiceXML"],
            path: "Tests/Fuzz/Driver", swiftSettings: strict
        ),
        .executableTarget(name: "SluiceTransferProbe", dependencies: ["Sluice", "SluiceCurl", "SluiceDownload", "SluiceMultipart"], swiftSettings: strict),
        // SluiceLogging: debug logging with SLUICE_LOG, redaction, copy as curl.
        .target(name: "SluiceLogging", dependencies: ["Sluice"], swiftSettings: strict),
        // Processes sharing one SQLite cache file, for the cache's multi-process tests.
        .executableTarget(name: "SluiceCacheStress", dependencies: ["Sluice", "SluiceCache", "SluiceCacheRedis", "SluiceCurl"], swiftSettings: strict),
        // MockTransport and helpers for testing one middleware in isolation.
        .target(name: "SluiceTesting", dependencies: ["Sluice"], swiftSettings: strict),

        // Micro-benchmark of the chain itself (no network): ns per middleware hop.
        .executableTarget(
            name: "SluiceMicroBench",
            dependencies: ["Sluice", "SluiceTesting"],
            swiftSettings: strict
        ),

        // sluice-bench: Sluice beside raw libcurl in C and URLSession, against a real server.
        .target(name: "CSluiceBench", dependencies: ["CCurl", "CZlib"]),
        .executableTarget(
            name: "SluiceBench",
            dependencies: [
                "Sluice", "SluiceCurl", "SluiceCache", "SluiceCacheRedis", "SluiceGzip", "SluiceHeaders", "SluiceURLEncoding", "SluiceSigning", "SluiceLogging",
                "CSluiceBench",
            ],
            swiftSettings: strict
        ),

        // `make demo`: the README's example, runnable.
        .executableTarget(
            name: "Quickstart",
            dependencies: ["Sluice", "SluiceLogging", "SluiceTesting"],
            path: "Examples/Quickstart",
            swiftSettings: strict
        ),

        // `make demo`: the tour of the default pipeline against an embedded MockWebServer.
        .executableTarget(
            name: "Tour",
            dependencies: ["Sluice", "SluiceCache", "SluiceCurl", "SluiceGzip", "SluiceHUD", "SluiceLogging", "SluiceReachability",
                           "SluiceRetry", "SluiceSigning", "SluiceTesting"],
            path: "Examples/Tour",
            swiftSettings: strict
        ),

        // Examples/: each builds and runs in `make test`.
        .executableTarget(name: "CustomPipeline", dependencies: ["Sluice", "SluiceCache", "SluiceHeaders", "SluiceLogging", "SluiceRetry", "SluiceTesting"],
                          path: "Examples/CustomPipeline", swiftSettings: strict),
        .executableTarget(name: "DebugLogging", dependencies: ["Sluice", "SluiceLogging", "SluiceTesting"],
                          path: "Examples/DebugLogging", swiftSettings: strict),
        // A company's own middleware module, with its own tests, and a program that uses it.
        .target(name: "AcmeSession", dependencies: ["Sluice"], path: "Examples/InHouseMiddleware/Sources/AcmeSession", swiftSettings: strict),
        .testTarget(name: "AcmeSessionTests", dependencies: ["AcmeSession", "Sluice", "SluiceTesting"],
                    path: "Examples/InHouseMiddleware/Tests/AcmeSessionTests", swiftSettings: strict),
        .executableTarget(name: "InHouseDemo", dependencies: ["AcmeSession", "Sluice", "SluiceLogging", "SluiceTesting"],
                          path: "Examples/InHouseMiddleware/Sources/InHouseDemo", swiftSettings: strict),

        // `swift package new-middleware Tenant`: the skeleton of an in-house middleware module.
        .plugin(
            name: "NewMiddleware",
            capability: .command(
                intent: .custom(verb: "new-middleware", description: "Write the skeleton of a new middleware module and its tests"),
                permissions: [.writeToPackageDirectory(reason: "writes Sources/<Module> and Tests/<Module>Tests")]
            )
        ),

        .testTarget(name: "SluiceTests", dependencies: ["Sluice", "SluiceTesting"], swiftSettings: strict),
        .testTarget(name: "SluiceCurlTests", dependencies: ["SluiceCurl", "Sluice", "SluiceTesting"], swiftSettings: strict),
        .testTarget(name: "SluiceTestingTests", dependencies: ["Sluice", "SluiceTesting"], swiftSettings: strict),
        .testTarget(name: "SluiceLoggingTests", dependencies: ["SluiceLogging", "Sluice", "SluiceTesting", "SluiceCurl", "SluiceRetry"], swiftSettings: strict),
        .testTarget(name: "SluiceHUDTests", dependencies: ["SluiceHUD", "Sluice", "SluiceTesting"], swiftSettings: strict),
        .testTarget(name: "SluiceXMLTests", dependencies: ["SluiceXML", "Sluice", "SluiceTesting"], swiftSettings: strict),
        .testTarget(name: "SluiceCommandLineTests", dependencies: ["SluiceCommandLine", "Sluice", "SluiceTesting", "SluiceCLI"], swiftSettings: strict),
        .testTarget(name: "SluiceCacheRedisTests", dependencies: ["SluiceCacheRedis", "SluiceCache", "Sluice", "SluiceTesting", "SluiceCacheStress"], swiftSettings: strict),
        .testTarget(name: "SluiceFuzzTests", dependencies: ["SluiceTesting", "SluiceFuzz"], swiftSettings: strict),
        .testTarget(name: "SluiceDownloadTests", dependencies: ["SluiceDownload", "Sluice", "SluiceCurl", "SluiceTesting", "SluiceTransferProbe"], swiftSettings: strict),
        .testTarget(name: "SluiceMultipartTests", dependencies: ["SluiceMultipart", "Sluice", "SluiceCurl", "SluiceTesting", "SluiceTransferProbe"], swiftSettings: strict),
        .testTarget(name: "SluiceOutboxTests", dependencies: ["SluiceOutbox", "Sluice", "SluiceCurl", "SluiceReachability", "SluiceTesting", "SluiceOutboxHelper"], swiftSettings: strict),
        .testTarget(name: "SluiceReachabilityTests", dependencies: ["SluiceReachability", "Sluice", "SluiceTesting", "SluiceReachabilityProbe"], swiftSettings: strict),
        .testTarget(name: "SluiceRetryTests", dependencies: ["SluiceRetry", "Sluice", "SluiceCurl", "SluiceTesting"], swiftSettings: strict),
        .testTarget(name: "SluiceSigningTests", dependencies: ["SluiceSigning", "Sluice", "SluiceTesting"], swiftSettings: strict),
        .testTarget(name: "SluiceURLEncodingTests", dependencies: ["SluiceURLEncoding", "Sluice", "SluiceCurl", "SluiceTesting"], swiftSettings: strict),
        .testTarget(name: "SluiceHeadersTests", dependencies: ["SluiceHeaders", "Sluice", "SluiceCurl", "SluiceTesting"], swiftSettings: strict),
        .testTarget(name: "SluiceGzipTests", dependencies: ["SluiceGzip", "Sluice", "SluiceCurl", "SluiceTesting", "CZlib"], swiftSettings: strict),
        .testTarget(name: "SluiceCacheTests", dependencies: ["SluiceCache", "SluiceCacheRedis", "Sluice", "SluiceCurl", "SluiceTesting", "CSQLite", "SluiceCacheStress"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
