import Foundation
import Sluice

extension Client {
    /// Downloads `request`'s body to `destination` (see ``Download``): streamed to a partial file
    /// next to it, resumed from an earlier run's bytes when the server allows, checked against
    /// an expected SHA-256, and moved into place atomically.
    ///
    /// ```swift
    /// import Foundation
    /// import Sluice
    /// import SluiceDownload
    ///
    /// let result = try await client.download(HTTPRequest(url: fileURL), to: URL(fileURLWithPath: "/tmp/big.iso"),
    ///                                        configuration: .init(expectedSHA256: checksum))
    /// ```
    ///
    /// Cancelling the calling task pauses it: the bytes are kept for the next call.
    public func download(
        _ request: HTTPRequest, to destination: URL, configuration: Download.Configuration = .default
    ) async throws -> DownloadResult {
        try await Download(request, to: destination, using: self, configuration: configuration).run()
    }
}
