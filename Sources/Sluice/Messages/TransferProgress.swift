/// Progress of an upload or a download, as reported through ``RequestContext/progress``.
///
/// ```swift
/// import Sluice
///
/// var context = RequestContext()
/// context.progress = { p in
///     if let f = p.fractionCompleted { print("\(p.direction): \(Int(f * 100))%") }
/// }
/// ```
public struct TransferProgress: Sendable, Hashable {
    /// Which way the bytes go.
    public enum Direction: Hashable, Sendable {
        /// The request body.
        case upload
        /// The response body.
        case download
    }

    /// Upload or download.
    public var direction: Direction
    /// Bytes transferred so far.
    public var completedBytes: Int64
    /// The total, when known.
    public var totalBytes: Int64?

    /// Progress of `completedBytes` out of `totalBytes` (when known) in `direction`.
    public init(direction: Direction, completedBytes: Int64, totalBytes: Int64?) {
        self.direction = direction
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
    }

    /// From 0 to 1, when the total is known and not zero.
    public var fractionCompleted: Double? {
        guard let totalBytes, totalBytes > 0 else { return nil }
        return min(1, Double(completedBytes) / Double(totalBytes))
    }
}
