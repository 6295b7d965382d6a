import Foundation

/// The executables SwiftPM built next to the test bundle (helpers that tests run as child
/// processes: `sluice`, `sluice-transfer-probe`, …).
///
/// ```swift
/// let process = Process()
/// process.executableURL = try BuiltProducts.executable("sluice-transfer-probe")
/// ```
package enum BuiltProducts {
    package struct Missing: Error, CustomStringConvertible {
        package let name: String
        package var description: String {
            "\(name) is not built next to the tests: build it (swift build --build-tests builds every product a test target depends on)"
        }
    }

    /// The built executable `name`.
    package static func executable(_ name: String) throws -> URL {
        let folders = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(), Bundle.main.bundleURL,
            Bundle.main.bundleURL.deletingLastPathComponent(),
        ]
        guard let found = folders.map({ $0.appendingPathComponent(name) }).first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw Missing(name: name)
        }
        return found
    }
}
