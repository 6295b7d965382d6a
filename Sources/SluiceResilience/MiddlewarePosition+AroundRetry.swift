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

    /// Hedged requests: inside retry (retry sees one attempt, hedged or not) and outside the
    /// circuit breaker (which counts each copy).
    ///
    /// ```swift
    /// import Sluice
    /// import SluiceResilience
    ///
    /// builder.add(HedgingMiddleware())   // at .hedging, its default position
    /// ```
    public static let hedging = MiddlewarePosition(rank: 640, name: "hedging")

    /// The deadline sent to the server: inside retry and the reachability gate, so each attempt
    /// carries its own time left, and outside signing, so a signature covers it.
    ///
    /// ```swift
    /// import Sluice
    /// import SluiceResilience
    ///
    /// builder.add(DeadlineHeaderMiddleware())   // at .deadlineHeader, its default position
    /// ```
    public static let deadlineHeader = MiddlewarePosition(rank: 750, name: "deadlineHeader")

    /// The adaptive concurrency limit: inside retry, hedging and the circuit breaker (each attempt
    /// and each copy takes a slot, a call the breaker refuses takes none) and inside the
    /// reachability gate (a call waiting for the network holds no slot); outside the deadline
    /// header and signing, which then see the time the call is really sent.
    ///
    /// ```swift
    /// import Sluice
    /// import SluiceResilience
    ///
    /// builder.add(ConcurrencyLimitMiddleware())   // at .concurrencyLimit, its default position
    /// ```
    public static let concurrencyLimit = MiddlewarePosition(rank: 720, name: "concurrencyLimit")
}
