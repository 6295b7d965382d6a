// swift-tools-version:6.0
// An app written only from Sluice's README, depending on it by path, as a new user's would.
// `make test` builds it and runs it against httpbin.
import PackageDescription

let package = Package(
    name: "FirstHour",
    dependencies: [
        .package(name: "Sluice", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "FirstHour",
            dependencies: [
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "SluiceStandard", package: "Sluice"),
            ])
    ],
    swiftLanguageModes: [.v6]
)
