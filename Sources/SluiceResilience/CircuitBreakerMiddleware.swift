import Foundation
import Sluice
import Synchronization

extension SluiceError.Code {
    /// ``SluiceResilience/CircuitBreakerMiddleware`` failed the call at once: its origin's circuit
    /// is open. The message names the origin and when a call goes through again.
    public static let circuitOpen = SluiceError.Code(rawValue: "circuitOpen")
}

/// A circuit breaker per origin: a host that keeps failing is given a rest, and its callers fail
/// at once instead of waiting on it, while every other host is untouched.
///
/// - **Closed**: calls go through. When the share of failures in the window (the last
///   ``Configuration/Window/calls(_:)`` calls, or those of the last
///   ``Configuration/Window/duration(_:)``) reaches ``Configuration/failureRateThreshold``, with
///   at least ``Configuration/minimumCalls`` in it, the circuit opens.
/// - **Open**: calls fail at once with `.circuitOpen`, naming the origin and when a call goes
///   through again, for ``Configuration/openDuration``.
/// - **Half-open**: ``Configuration/halfOpenProbes`` calls go through as probes; if all succeed
///   the circuit closes, one failure opens it again. Other calls fail at once meanwhile.
///
/// What fails is ``Configuration/isFailure``: by default a failure to connect, a lost
/// connection, a timeout, a DNS or TLS failure, an invalid answer, a 5xx or a 429. A cancelled
/// call counts for nothing, and `.offline` (the machine's network, not the host) neither.
///
/// Its place, `MiddlewarePosition.circuitBreaker`, is inside retry: the breaker sees
/// every attempt, and a retry to an open circuit fails at once (retry does not retry
/// `.circuitOpen`). Origins are `scheme://host:port` as the transport sends them, at most
/// ``Configuration/maxOrigins`` of them kept.
///
/// ```swift
/// import Sluice
/// import SluiceCurl
/// import SluiceResilience
///
/// var builder = Client.Builder(transport: CurlTransport())
/// let breaker = CircuitBreakerMiddleware(configuration: .init(window: .calls(20), failureRateThreshold: 0.5))
/// builder.add(breaker)
/// Task { for await change in breaker.stateChanges() { print(change.origin, change.to) } }
/// ```
public struct CircuitBreakerMiddleware: Middleware {
    /// When a circuit opens, how long it stays open, and what counts as a failure.
    public struct Configuration: Sendable {
        /// The outcomes a circuit judges by.
        public enum Window: Sendable, Hashable {
            /// The last `n` calls.
            case calls(Int)
            /// The calls of the last `duration`, kept in ten buckets.
            case duration(Duration)
        }

        /// The outcomes judged: the last 20 calls by default.
        public var window: Window
        /// The share of failures in the window that opens the circuit (0.5 by default).
        public var failureRateThreshold: Double
        /// The fewest calls in the window before it can open (10 by default).
        public var minimumCalls: Int
        /// How long an open circuit fails calls at once before it lets probes through (30 s).
        public var openDuration: Duration
        /// How many probes a half-open circuit lets through, all of which must succeed (2).
        public var halfOpenProbes: Int
        /// The most origins kept; the one used longest ago is forgotten first (1,024).
        public var maxOrigins: Int
        /// Whether an outcome counts as a failure; ``defaultIsFailure(_:)`` unless set.
        public var isFailure: @Sendable (Result<HTTPResponse, any Error>) -> Bool
        /// The clock the circuits read (injectable for tests).
        public var clock: @Sendable () -> ContinuousClock.Instant

        /// Settings with each value given, or its default.
        public init(
            window: Window = .calls(20), failureRateThreshold: Double = 0.5, minimumCalls: Int = 10, openDuration: Duration = .seconds(30),
            halfOpenProbes: Int = 2, maxOrigins: Int = 1024,
            isFailure: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Bool = CircuitBreakerMiddleware.defaultIsFailure,
            clock: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
        ) {
            self.window = window
            self.failureRateThreshold = failureRateThreshold
            self.minimumCalls = minimumCalls
            self.openDuration = openDuration
            self.halfOpenProbes = halfOpenProbes
            self.maxOrigins = maxOrigins
            self.isFailure = isFailure
            self.clock = clock
        }

        /// The last 20 calls, open at half of them failed (10 at least), 30 s open, 2 probes.
        public static let `default` = Configuration()
    }

    public static let defaultPosition = MiddlewarePosition.circuitBreaker

    /// How it behaves.
    public let configuration: Configuration
    let breaker: CircuitBreaker
    private let subscribers: Subscribers

    /// A setting no range holds (NaN), refused at each call.
    private let misconfiguration: SluiceError?

    /// A breaker with `configuration`, its circuits all closed. A setting that cannot work is
    /// brought to the nearest that can: a window of calls to 1...100,000, a window of time to
    /// 1 s...100 years, the threshold to 0...1, `minimumCalls` to 1...1,000,000, `openDuration` to
    /// 0...100 years, probes to 1...1,000, origins to 1...1,000,000. A threshold that is NaN is
    /// `.misconfigured` at the first call.
    public init(configuration: Configuration = .default) {
        var window = configuration.window
        if case .calls(let size) = window { window = .calls(size.clamped(to: 1...100_000)) }
        if case .duration(let length) = window { window = .duration(max(.seconds(1), length.clampedWait)) }
        self.configuration = configuration
        let threshold = configuration.failureRateThreshold.clamped(to: 0...1)
        misconfiguration =
            threshold == nil ? .notANumber("CircuitBreakerMiddleware.Configuration.failureRateThreshold", expected: "a share in 0...1") : nil
        breaker = CircuitBreaker(
            rules: .init(
                window: window, failureRateThreshold: threshold ?? 0.5,
                minimumCalls: configuration.minimumCalls.clamped(to: 1...1_000_000), openDuration: configuration.openDuration.clampedWait,
                halfOpenProbes: configuration.halfOpenProbes.clamped(to: 1...1000), maxOrigins: configuration.maxOrigins.clamped(to: 1...1_000_000)))
        subscribers = Subscribers()
    }

    /// The failures that say a host is in trouble: a failure to connect, a lost connection, a
    /// timeout, a DNS or TLS failure, an answer that is not HTTP, a 5xx or a 429.
    ///
    /// ```swift
    /// import Sluice
    /// import SluiceResilience
    ///
    /// CircuitBreakerMiddleware.defaultIsFailure(.success(HTTPResponse(status: .serviceUnavailable)))   // true
    /// ```
    public static func defaultIsFailure(_ outcome: Result<HTTPResponse, any Error>) -> Bool {
        switch outcome {
        case .success(let response):
            return response.status.code >= 500 || response.status.code == 429
        case .failure(let error):
            guard let error = error as? SluiceError else { return false }
            return [.cannotConnect, .connectionLost, .timedOut, .dnsFailure, .tlsFailure, .invalidResponse].contains(error.code)
        }
    }

    /// The state of the circuit of `url`'s origin.
    public func state(of url: URL) -> CircuitState {
        breaker.state(of: url.origin)
    }

    /// Each circuit's changes from now on, as they happen, until the stream is dropped (a slow
    /// reader loses the oldest past 64).
    public func stateChanges() -> AsyncStream<CircuitBreakerEvent> {
        subscribers.stream()
    }

    /// - Throws: `.circuitOpen` while the origin's circuit is open; `.misconfigured` for a
    ///   threshold that is NaN, before anything is sent.
    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        if let misconfiguration { throw misconfiguration }
        let origin = next.urlAsSent(request.url).origin
        let (admission, opened) = breaker.admit(origin, now: configuration.clock())
        if let opened { subscribers.send(opened) }
        let isProbe: Bool
        switch admission {
        case .allowed(let probe):
            isProbe = probe
        case .rejected(let until, let failures, let calls):
            let wait: String
            if let until {
                wait = "the next call goes through in \(String(format: "%.1f s", max(.zero, configuration.clock().duration(to: until)).timeInterval))"
            } else {
                wait = "its \(configuration.halfOpenProbes) probe\(configuration.halfOpenProbes == 1 ? " is" : "s are") out"
            }
            throw SluiceError(
                .circuitOpen,
                "the circuit for \(origin) is open after \(failures) of \(calls) calls failed; \(wait); \(request) was not sent")
        }
        let response: HTTPResponse
        do {
            response = try await next(request, context)
        } catch {
            if error is CancellationError || Task.isCancelled {
                breaker.release(origin, isProbe: isProbe)
            } else if let changed = breaker.record(
                origin, failed: configuration.isFailure(.failure(error)), isProbe: isProbe, now: configuration.clock())
            {
                subscribers.send(changed)
            }
            throw error
        }
        if let changed = breaker.record(origin, failed: configuration.isFailure(.success(response)), isProbe: isProbe, now: configuration.clock()) {
            subscribers.send(changed)
        }
        return response
    }
}

/// The readers of ``CircuitBreakerMiddleware/stateChanges()``, shared by every copy of the
/// middleware.
final class Subscribers: Sendable {
    private let continuations = Locked([UInt64: AsyncStream<CircuitBreakerEvent>.Continuation]())
    private let nextID = Atomic<UInt64>(0)

    func stream() -> AsyncStream<CircuitBreakerEvent> {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream.makeStream(of: CircuitBreakerEvent.self, bufferingPolicy: .bufferingNewest(64))
        continuation.onTermination = { [weak self] _ in self?.continuations.withLock { _ = $0.removeValue(forKey: id) } }
        continuations.withLock { $0[id] = continuation }
        return stream
    }

    func send(_ event: CircuitBreakerEvent) {
        for continuation in continuations.withLock({ Array($0.values) }) { continuation.yield(event) }
    }

    deinit {
        for continuation in continuations.withLock({ Array($0.values) }) { continuation.finish() }
    }
}
