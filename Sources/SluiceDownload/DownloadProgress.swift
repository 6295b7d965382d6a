/// How far a download has come, counting bytes kept from earlier runs: bytes, total, rate and
/// time left.
///
/// ```swift
/// import SluiceDownload
///
/// let configuration = Download.Configuration(progress: { p in
///     print("\(p.completedBytes)/\(p.totalBytes ?? -1) at \(Int(p.bytesPerSecond ?? 0)) B/s, \(p.estimatedTimeRemaining ?? .zero) left")
/// })
/// ```
public struct DownloadProgress: Sendable, Hashable {
    /// Bytes in the file so far, from earlier runs too.
    public var completedBytes: Int64
    /// The whole file's size, when the server said.
    public var totalBytes: Int64?
    /// The rate of this run so far; `nil` before the first byte.
    public var bytesPerSecond: Double?
    /// At that rate, the time left; `nil` without a total or a rate.
    public var estimatedTimeRemaining: Duration?

    /// Progress with these figures.
    public init(completedBytes: Int64, totalBytes: Int64?, bytesPerSecond: Double?, estimatedTimeRemaining: Duration?) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
        self.bytesPerSecond = bytesPerSecond
        self.estimatedTimeRemaining = estimatedTimeRemaining
    }

    /// From 0 to 1, when the total is known.
    public var fractionCompleted: Double? {
        guard let totalBytes, totalBytes > 0 else { return nil }
        return min(1, Double(completedBytes) / Double(totalBytes))
    }
}
