import Foundation

/// A fresh directory under the system's temporary folder, removed with everything in it when the
/// value goes away: one per test, so tests never see each other's files.
///
/// ```swift
/// let folder = try TemporaryDirectory(prefix: "sluice-download")
/// let file = try folder.write(Data("hello".utf8), to: "notes.txt")
/// let database = folder.filePath("cache.sqlite")
/// ```
package final class TemporaryDirectory: Sendable {
    package let url: URL
    package var path: String { url.path }

    package init(prefix: String = "sluice-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The path of `name` inside the directory (the file need not exist).
    package func filePath(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// The URL of `name` inside the directory (the file need not exist).
    package func fileURL(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Writes `data` to `name` inside the directory; its URL.
    @discardableResult
    package func write(_ data: Data, to name: String) throws -> URL {
        let file = fileURL(name)
        try data.write(to: file)
        return file
    }
}
