import Foundation

/// One call a ``Client`` has accepted and not yet finished, as ``Client/inFlight`` reports it.
///
/// ```swift
/// import Sluice
///
/// for call in client.inFlight where call.state == .queued {
///     print("waiting:", call.method, call.url, call.tags)
/// }
/// ```
public struct InFlightRequest: Sendable, Hashable, Identifiable {
    /// Whether the call is waiting for a slot under the concurrency limit or going through the
    /// pipeline.
    public enum State: Sendable, Hashable {
        /// Waiting for a slot under the client's concurrency limit.
        case queued
        /// Going through the pipeline.
        case running
    }

    /// Unique within the client, in the order calls arrived.
    public let id: UInt64
    /// The request's method.
    public let method: HTTPMethod
    /// The URL as the caller gave it to the client (before middleware such as URL encoding).
    public let url: URL
    /// The request's tags.
    public let tags: Set<String>
    /// The request's priority in the client's queue.
    public let priority: RequestPriority
    /// Queued or running.
    public let state: State
    /// When the client accepted the call.
    public let accepted: ContinuousClock.Instant
}
