import Foundation
import Sluice

/// A finished download: where the file is, how big, how much came from an earlier run, and the
/// response that completed it.
///
/// ```swift
/// import FoundationEssentials
/// import SluiceDownload
///
/// let result = try await client.download(request, to: destination)
/// print(result.file.path, result.bytes, "bytes;", result.resumedFrom, "were already here")
/// ```
public struct DownloadResult: Sendable {
    /// The destination, now holding the whole file.
    public let file: URL
    /// The file's size in bytes.
    public let bytes: Int64
    /// Bytes kept from a paused or broken earlier run (0 for a fresh download).
    public let resumedFrom: Int64
    /// How many requests this run took (more than 1 after automatic resumes).
    public let requests: Int
    /// The file's SHA-256 in lowercase hex, when one was expected (and so checked).
    public let sha256: String?
    /// The last response; its body is in ``file``.
    public let response: HTTPResponse
}
