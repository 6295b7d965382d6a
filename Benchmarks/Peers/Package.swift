// swift-tools-version:6.1
// The peer Sluice is measured against: AsyncHTTPClient, the client Swift server teams run today,
// in a package of its own so that `make bench` stays light (AHC and SwiftNIO take about 20 minutes
// to build in release the first time). `make bench-peers` builds it and hands its binary to
// sluice-bench (`--peer PATH`), which runs it beside libcurl from C and Sluice's clients, in the
// same rounds, against the same nginx. Never a dependency of Sluice itself.
import PackageDescription

let package = Package(
    name: "SluicePeers",
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.33.1")
    ],
    targets: [
        // sluice-bench-ahc: one scenario through AsyncHTTPClient, its wall time and CPU time.
        .executableTarget(
            name: "sluice-bench-ahc",
            dependencies: [.product(name: "AsyncHTTPClient", package: "async-http-client")],
            path: "Sources/AHCBench",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")])
    ]
)
