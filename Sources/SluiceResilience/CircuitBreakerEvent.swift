/// One origin's circuit changing state: for a HUD, a log line or a metric.
///
/// ```swift
/// import SluiceResilience
///
/// let breaker = CircuitBreakerMiddleware()
/// Task {
///     for await event in breaker.stateChanges() {
///         print("\(event.origin): \(event.from) → \(event.to)")   // http://127.0.0.1:8080: closed → open
///     }
/// }
/// ```
public struct CircuitBreakerEvent: Sendable, Hashable {
    /// `scheme://host:port`, as the transport sends it.
    public let origin: String
    /// The state before.
    public let from: CircuitState
    /// The state now.
    public let to: CircuitState
    /// When it changed.
    public let at: ContinuousClock.Instant
}
