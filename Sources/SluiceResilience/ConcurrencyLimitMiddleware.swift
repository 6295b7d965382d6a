import Foundation
import Sluice

extension SluiceError.Code {
    /// ``SluiceResilience/ConcurrencyLimitMiddleware`` did not send the call: its origin's calls
    /// in flight had reached the adaptive limit, and the call was set to fail fast or the queue was
    /// full. The message names the origin, the limit and the calls waiting.
    public static let concurrencyLimited = SluiceError.Code(rawValue: "concurrencyLimited")
}

/// An adaptive concurrency limit per origin: how many calls may be in flight to one host, learned
/// from what its answers measure, so a client backs off a host that slows down before it queues
/// more work on it, and uses a fast one fully.
///
/// - ``Configuration/Algorithm/gradient(tolerance:smoothing:probeInterval:)`` (the default)
///   compares each answer's latency with the lowest measured: while it stays within `tolerance` of
///   it the limit grows (by its square root, the queue it allows the server); when latency climbs
///   the limit falls with it. For a server that queues what it cannot serve.
/// - ``Configuration/Algorithm/aimd(backoffRatio:timeout:)`` adds one call per round trip while
///   the limit is in use and multiplies the limit by `backoffRatio` on a sign of overload. For a
///   server that sheds load (429, 503).
///
/// Signs of overload are ``Configuration/isOverload``: a timeout, a 429, a 503 or a 504 by
/// default; each halves (gradient) or backs off (AIMD) the limit once per round. A call above the
/// limit waits for a slot, highest `HTTPRequest.priority` first and then in arrival order, until
/// its deadline; or fails at once with `.concurrencyLimited`, as
/// ``Configuration/whenLimited`` says. A streamed body holds its slot until it is read to the end
/// or dropped.
///
/// Its place, `MiddlewarePosition.concurrencyLimit`, is inside retry, hedging and the circuit
/// breaker (each attempt and each copy takes a slot; a call the breaker refuses takes none) and
/// inside the reachability gate (a call waiting for the network holds no slot), and outside the
/// deadline header and signing (both see the time the call is really sent). The client's fixed
/// `Client.Configuration.maxConcurrentRequests`, over all origins, still applies before it.
///
/// ```swift
/// import Foundation
/// import Sluice
/// import SluiceCurl
/// import SluiceResilience
///
/// var builder = Client.Builder(transport: CurlTransport())
/// let limit = ConcurrencyLimitMiddleware(configuration: .init(algorithm: .gradient(), whenLimited: .wait(maxWaiting: 500)))
/// builder.add(limit)
/// let client = builder.build()
/// print(limit.status(of: URL(string: "https://api.example.com")!))   // limit 20, 0 in flight, 0 waiting
/// ```
public struct ConcurrencyLimitMiddleware: Middleware, CallHolding {
    /// How the limit moves, where it starts, and what a call above it does.
    public struct Configuration: Sendable {
        /// How answers move the limit.
        public enum Algorithm: Sendable, Hashable {
            /// Additive increase (one call per round trip while the limit is in use), multiplicative
            /// decrease (times `backoffRatio`) on a sign of overload; a call slower than `timeout`,
            /// when set, is one.
            case aimd(backoffRatio: Double = 0.9, timeout: Duration? = nil)
            /// Each answer moves the limit `smoothing` of the way toward
            /// `limit × min(1, tolerance × lowest latency ÷ latency) + √limit`; every
            /// `probeInterval` answers the limit drops to its square root and the lowest latency is
            /// measured again.
            case gradient(tolerance: Double = 1.5, smoothing: Double = 0.2, probeInterval: Int = 1000)
        }

        /// What a call does when its origin's limit is reached.
        public enum WhenLimited: Sendable, Hashable {
            /// Waits for a slot (highest priority first, then arrival) until its deadline; fails
            /// with `.concurrencyLimited` when `maxWaiting` calls wait already.
            case wait(maxWaiting: Int)
            /// Fails at once with `.concurrencyLimited`.
            case failFast
        }

        /// How the limit moves: the gradient by default.
        public var algorithm: Algorithm
        /// The limit each origin starts at (20).
        public var initialLimit: Int
        /// The lowest the limit goes (1).
        public var minLimit: Int
        /// The highest the limit goes (1,000).
        public var maxLimit: Int
        /// What a call above the limit does: wait, with at most 1,000 waiting per origin.
        public var whenLimited: WhenLimited
        /// The most origins kept; the one used longest ago is forgotten first (1,024).
        public var maxOrigins: Int
        /// Whether an outcome is a sign of overload; ``defaultIsOverload(_:)`` unless set.
        public var isOverload: @Sendable (Result<HTTPResponse, any Error>) -> Bool

        /// Settings with each value given, or its default.
        public init(
            algorithm: Algorithm = .gradient(), initialLimit: Int = 20, minLimit: Int = 1, maxLimit: Int = 1000,
            whenLimited: WhenLimited = .wait(maxWaiting: 1000), maxOrigins: Int = 1024,
            isOverload: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Bool = ConcurrencyLimitMiddleware.defaultIsOverload
        ) {
            self.algorithm = algorithm
            self.initialLimit = initialLimit
            self.minLimit = minLimit
            self.maxLimit = maxLimit
            self.whenLimited = whenLimited
            self.maxOrigins = maxOrigins
            self.isOverload = isOverload
        }

        /// The gradient from 20 (between 1 and 1,000), waiting with at most 1,000 per origin.
        public static let `default` = Configuration()
    }

    /// One origin's limit as it stands.
    public struct Status: Sendable, Hashable, CustomStringConvertible {
        /// The calls that may be in flight now.
        public let limit: Int
        /// The calls in flight.
        public let inFlight: Int
        /// The calls waiting for a slot.
        public let waiting: Int
        /// The lowest latency measured since the last probe (gradient only).
        public let minimumLatency: Duration?

        public var description: String { "limit \(limit), \(inFlight) in flight, \(waiting) waiting" }
    }

    public static let defaultPosition = MiddlewarePosition.concurrencyLimit

    /// How it behaves.
    public let configuration: Configuration
    private let limiters: ConcurrencyLimiters
    /// A setting no range holds (NaN), refused at each call.
    private let misconfiguration: SluiceError?

    /// The range every limit is held to: at least one call, at most a million.
    static let limits = 1...1_000_000

    /// A limiter with `configuration`. A setting that cannot work is brought to the nearest that
    /// can: limits to 1...1,000,000, `backoffRatio` to 0.1...0.99, `tolerance` to 1...1,000,
    /// `smoothing` to 0.01...1, `probeInterval` to at least 10, a timeout to 0...100 years. A
    /// ratio, tolerance or smoothing that is NaN is `.misconfigured` at the first call.
    public init(configuration: Configuration = .default) {
        self.configuration = configuration
        var rule = AdaptiveLimit.Rule.gradient(tolerance: 1.5, smoothing: 0.2, probeInterval: 1000)
        var misconfiguration: SluiceError?
        switch configuration.algorithm {
        case .aimd(let ratio, let timeout):
            if let ratio = ratio.clamped(to: 0.1...0.99) {
                rule = .aimd(backoffRatio: ratio, timeout: timeout?.clampedWait)
            } else {
                misconfiguration = .notANumber("ConcurrencyLimitMiddleware's aimd backoffRatio", expected: "a ratio in 0.1...0.99")
            }
        case .gradient(let tolerance, let smoothing, let probeInterval):
            if let tolerance = tolerance.clamped(to: 1...1000), let smoothing = smoothing.clamped(to: 0.01...1) {
                rule = .gradient(tolerance: tolerance, smoothing: smoothing, probeInterval: max(10, probeInterval))
            } else {
                misconfiguration = .notANumber(
                    "ConcurrencyLimitMiddleware's gradient tolerance or smoothing", expected: "a tolerance in 1...1000 and a smoothing in 0.01...1")
            }
        }
        self.misconfiguration = misconfiguration
        let limits = Self.limits
        let (initial, low, high) = (
            configuration.initialLimit.clamped(to: limits), configuration.minLimit.clamped(to: limits), configuration.maxLimit.clamped(to: limits)
        )
        limiters = ConcurrencyLimiters(maxOrigins: configuration.maxOrigins.clamped(to: 1...1_000_000)) { [rule] in
            AdaptiveLimit(rule: rule, initial: initial, min: low, max: high)
        }
    }

    /// Timeouts, 429 Too Many Requests, 503 Service Unavailable and 504 Gateway Timeout.
    ///
    /// ```swift
    /// import Sluice
    /// import SluiceResilience
    ///
    /// ConcurrencyLimitMiddleware.defaultIsOverload(.success(HTTPResponse(status: .tooManyRequests)))   // true
    /// ```
    public static func defaultIsOverload(_ outcome: Result<HTTPResponse, any Error>) -> Bool {
        switch outcome {
        case .success(let response): [429, 503, 504].contains(response.status.code)
        case .failure(let error): (error as? SluiceError)?.code == .timedOut
        }
    }

    /// The calls waiting for a slot, by origin: what `Client.poolStatistics()` counts as held.
    public func heldCalls() -> [String: Int] {
        limiters.waiting()
    }

    /// The limit of `url`'s origin as it stands; the initial limit for an origin not called yet.
    public func status(of url: URL) -> Status {
        limiters.existing(for: url.origin)?.status
            ?? Status(limit: limiters.initialLimit, inFlight: 0, waiting: 0, minimumLatency: nil)
    }

    /// - Throws: `.concurrencyLimited` or `.timedOut` as ``Configuration/whenLimited`` says;
    ///   `.misconfigured` for a setting that is NaN, before anything is sent.
    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        if let misconfiguration { throw misconfiguration }
        let origin = next.urlAsSent(request.url).origin
        let limiter = limiters.limiter(for: origin)
        let slot = try await admission(request, context, limiter: limiter, origin: origin)
        var response: HTTPResponse
        do {
            response = try await next(request, context)
        } catch {
            let cancelled = SluiceError.isCancellation(error)
            limiter.release(slot, latency: nil, overloaded: !cancelled && configuration.isOverload(.failure(error)))
            throw error
        }
        let overloaded = configuration.isOverload(.success(response))
        guard let stream = response.bodyStream else {
            // A body written to a file took as long as its size: it says nothing of the load.
            limiter.release(slot, latency: response.bodyFile == nil ? slot.sent.duration(to: .now) : nil, overloaded: overloaded)
            return response
        }
        // A streamed body holds its slot until it is read to the end, fails, or is dropped.
        let isOverload = configuration.isOverload
        response.bodyStream = stream.observingEnd(finish: { error in
            let failed = error.map { !($0 is CancellationError) && isOverload(.failure($0)) } ?? false
            limiter.release(slot, latency: nil, overloaded: overloaded || failed)
        })
        return response
    }

    /// A slot for the call, waited for as configured; when it was taken.
    private func admission(
        _ request: HTTPRequest, _ context: RequestContext, limiter: ConcurrencyLimiter, origin: String
    ) async throws -> ConcurrencyLimiter.Slot {
        let maxWaiting: Int
        switch configuration.whenLimited {
        case .failFast: maxWaiting = 0
        case .wait(let most): maxWaiting = max(0, most)
        }
        let refused = { (status: Status) in
            let waiting = maxWaiting == 0 ? "" : ", and \(status.waiting) wait already, the most that may"
            return SluiceError(
                .concurrencyLimited,
                "\(origin) has \(status.inFlight) calls in flight, its concurrency limit of \(status.limit)\(waiting); \(request) was not sent")
        }
        switch limiter.admit(maxWaiting: maxWaiting) {
        case .admitted(let slot):
            return slot
        case .refused(let status):
            throw refused(status)
        case .mustWait:
            let start = ContinuousClock.now
            do {
                return try await limiter.wait(priority: request.priority, until: context.deadline, maxWaiting: maxWaiting)
            } catch let full as ConcurrencyLimiter.QueueFull {
                throw refused(full.status)
            } catch is ConcurrencyLimiter.Expired {
                throw SluiceError(
                    .timedOut,
                    "\(request) waited \(String(format: "%.1f s", start.duration(to: .now).timeInterval)) for a slot under \(origin)'s "
                        + "concurrency limit of \(limiter.status.limit) and reached its deadline; it was not sent")
            }
        }
    }
}
