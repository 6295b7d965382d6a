import Sluice

extension MiddlewarePosition {
    /// The circuit breaker: inside retry, so it sees each attempt and a retry to an open circuit
    /// fails at once; outside the reachability gate, so an offline machine opens no circuit.
    ///
    /// ```swift
    /// import Sluice
    /// import SluiceResilience
    ///
    /// builder.add(CircuitBreakerMiddleware())   // at .circuitBreaker, its default position
    /// ```
    public static let circuitBreaker = MiddlewarePosition(rank: 650, name: "circuitBreaker")
}
