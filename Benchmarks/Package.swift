// swift-tools-version:6.1
// Sluice's benchmarks, a package of their own beside the library (`make bench`, `make bench-cache`,
// `make bench-middleware`, `make bench-instructions`, `make bench-micro`, `make bench-resilience`,
// `make soak`). Figures and
// how to read them: Benchmarks/README.md.
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

func sluice(_ products: String...) -> [Target.Dependency] {
    products.map { .product(name: $0, package: "Sluice") }
}

let package = Package(
    name: "SluiceBenchmarks",
    dependencies: [
        // With the traits of the integrations the middleware benchmark measures.
        .package(name: "Sluice", path: "..", traits: ["Metrics", "Tracing"])
    ],
    targets: [
        // What the executables share: a synchronous main that valgrind can run.
        .target(name: "BenchmarkSupport", swiftSettings: strict),
        // Raw libcurl and zlib driven from C: the references every Swift client is compared with.
        .target(name: "CSluiceBench", linkerSettings: [.linkedLibrary("curl"), .linkedLibrary("z")]),
        // sluice-bench: Sluice beside raw libcurl in C and URLSession against nginx; --cache, --middleware.
        .executableTarget(
            name: "sluice-bench",
            dependencies: ["BenchmarkSupport", "CSluiceBench"]
                + sluice(
                    "Sluice", "SluiceCurl", "SluiceCache", "SluiceCacheRedis", "SluiceGzip", "SluiceHeaders", "SluiceURLEncoding",
                    "SluiceSigning", "SluiceLogging", "SluiceRetry", "SluiceReachability", "SluiceHUD", "SluiceMetrics", "SluiceTracing",
                    "SluiceResilience", "SluiceRateLimitRedis"
                ),
            path: "Sources/SluiceBench", swiftSettings: strict
        ),
        // sluice-microbench: the chain's own cost, ns per middleware hop, no I/O.
        .executableTarget(
            name: "sluice-microbench", dependencies: ["BenchmarkSupport"] + sluice("Sluice", "SluiceTesting"),
            path: "Sources/SluiceMicroBench", swiftSettings: strict),
        // sluice-resilience-bench: hedging against a slow tail, the circuit breaker against a failing host.
        .executableTarget(
            name: "sluice-resilience-bench",
            dependencies: ["BenchmarkSupport"] + sluice("Sluice", "SluiceCurl", "SluiceResilience", "SluiceTesting"),
            path: "Sources/SluiceResilienceBench", swiftSettings: strict),
        // sluice-soak: a long run through every middleware against nginx; memory and descriptors stay flat.
        .executableTarget(
            name: "sluice-soak",
            dependencies: sluice(
                "Sluice", "SluiceCurl", "SluiceCache", "SluiceGzip", "SluiceHeaders", "SluiceHUD", "SluiceLogging", "SluiceReachability",
                "SluiceRetry", "SluiceSigning", "SluiceURLEncoding"
            ),
            path: "Sources/SluiceSoak", swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
