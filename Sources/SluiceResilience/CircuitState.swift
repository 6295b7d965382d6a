/// Where one origin's circuit stands.
///
/// ```swift
/// import Foundation
/// import SluiceResilience
///
/// let breaker = CircuitBreakerMiddleware()
/// if case .open(let until) = breaker.state(of: URL(string: "https://api.example.com/")!) {
///     print("failing fast until \(until)")
/// }
/// ```
public enum CircuitState: Sendable, Hashable, CustomStringConvertible {
    /// Calls go through; their outcomes fill the window.
    case closed
    /// Calls fail at once with `.circuitOpen` until the instant given.
    case open(until: ContinuousClock.Instant)
    /// A few probe calls go through; they close the circuit or open it again.
    case halfOpen

    /// `closed`, `open` or `half-open`.
    public var description: String {
        switch self {
        case .closed: "closed"
        case .open: "open"
        case .halfOpen: "half-open"
        }
    }
}
