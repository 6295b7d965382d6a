/// Where a request waits in a ``Client``'s queue when the client's concurrency limit
/// (``Client/Configuration/maxConcurrentRequests``) is reached: higher first, first come first
/// served within one priority. It never reorders requests that are already running.
///
/// ```swift
/// import Sluice
///
/// var request = try client.makeRequest(.get, "avatar/42")
/// request.priority = .high        // the image on screen goes before the prefetches
/// ```
public enum RequestPriority: Int, Sendable, Hashable, Comparable, CaseIterable {
    /// After every other.
    case low
    /// The default.
    case normal
    /// Before normal and low requests.
    case high

    public static func < (lhs: RequestPriority, rhs: RequestPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}
