import Foundation
import Sluice
import Synchronization

/// Hedged requests: when an idempotent call has not answered after a delay, a second copy is
/// sent; the first answer wins and the other transfer is cancelled at once (its connection closed,
/// never left half-read). A slow tail of a healthy host (one answer in twenty that takes a second)
/// then costs the caller the delay, not the tail.
///
/// - Only for calls that may go twice: GET, HEAD, OPTIONS, TRACE, PUT and DELETE (RFC 9110's
///   idempotent methods), or any method with an `Idempotency-Key` field; and only with a body
///   that can be sent again. Never for a body streamed or written to a file as it arrives.
/// - The delay is ``Configuration/Delay/fixed(_:)``, or ``Configuration/Delay/percentile(_:fallback:)``
///   of the origin's recent latencies (its p95, say), `fallback` until 20 are known.
/// - A budget keeps the extra load down: hedges are at most ``Configuration/maxExtraRatio`` of
///   the calls of the last 10 s (10% by default), or ``Configuration/minimumPerSecond`` a second
///   of that window (one) if that is more, so a caller with little traffic is hedged too (as
///   gRPC's and Finagle's budgets keep a floor). ``status`` counts the hedges the budget refused.
/// - A copy that fails does not end the call while the other may still answer.
/// - A hedge is counted as one, not as a retry: the copy's `RequestContext.isHedge` is `true`
///   (SluiceTracing's span per attempt marks it `sluice.hedge`), and the answer's
///   `HTTPResponse.hedges` counts the copies sent (SluiceMetrics'
///   `sluice_http_client_hedges_total`).
///
/// Its place, `MiddlewarePosition.hedging`, is inside retry (retry sees one attempt, hedged or
/// not) and outside the circuit breaker (which counts each copy).
///
/// ```swift
/// import Sluice
/// import SluiceCurl
/// import SluiceResilience
///
/// var builder = Client.Builder(transport: CurlTransport())
/// builder.add(HedgingMiddleware(configuration: .init(delay: .percentile(0.95, fallback: .milliseconds(100)))))
/// ```
public struct HedgingMiddleware: Middleware {
    /// When a copy is sent, and how many may be.
    public struct Configuration: Sendable {
        /// How long a call runs before its copy is sent.
        public enum Delay: Sendable, Hashable {
            /// Always this long.
            case fixed(Duration)
            /// This percentile (0.95 for the p95) of the origin's last 200 latencies; `fallback`
            /// until 20 are known.
            case percentile(Double, fallback: Duration)
        }

        /// When a copy is sent: the origin's p95, 100 ms until it is known. A delay is held to
        /// 0...100 years, a percentile to 0...1; a NaN percentile is `.misconfigured` at the first
        /// call.
        public var delay: Delay
        /// Hedges allowed per call, over the last 10 s (0.1: at most 10% extra requests), held to
        /// 0...1; NaN is `.misconfigured` at the first call.
        public var maxExtraRatio: Double
        /// Hedges allowed each second of the 10 s window whatever the traffic (1: ten per window),
        /// when that is more than ``maxExtraRatio`` allows; held to 0...1,000, NaN refused.
        public var minimumPerSecond: Double

        /// Settings with each value given, or its default.
        public init(
            delay: Delay = .percentile(0.95, fallback: .milliseconds(100)), maxExtraRatio: Double = 0.1, minimumPerSecond: Double = 1
        ) {
            self.delay = delay
            self.maxExtraRatio = maxExtraRatio
            self.minimumPerSecond = minimumPerSecond
        }

        /// The p95 of each origin (100 ms until known), at most 10% extra requests or one a second.
        public static let `default` = Configuration()

        /// The settings held to their ranges, or the `.misconfigured` error for one that is NaN.
        func checked() -> Result<Configuration, SluiceError> {
            var checked = self
            switch delay {
            case .fixed(let delay): checked.delay = .fixed(delay.clampedWait)
            case .percentile(let percentile, let fallback):
                guard let percentile = percentile.clamped(to: 0...1) else {
                    return .failure(.notANumber("HedgingMiddleware.Configuration.delay's percentile", expected: "one in 0...1 (0.95 for the p95)"))
                }
                checked.delay = .percentile(percentile, fallback: fallback.clampedWait)
            }
            guard let ratio = maxExtraRatio.clamped(to: 0...1) else {
                return .failure(.notANumber("HedgingMiddleware.Configuration.maxExtraRatio", expected: "a share in 0...1"))
            }
            guard let minimum = minimumPerSecond.clamped(to: 0...1000) else {
                return .failure(.notANumber("HedgingMiddleware.Configuration.minimumPerSecond", expected: "hedges a second in 0...1000"))
            }
            checked.maxExtraRatio = ratio
            checked.minimumPerSecond = minimum
            return .success(checked)
        }
    }

    /// The budget over the last 10 s, as it stands.
    public struct Status: Sendable, Hashable, CustomStringConvertible {
        /// Calls counted.
        public let calls: Int
        /// Hedges sent.
        public let hedges: Int
        /// Hedges the budget refused: calls that were slow enough to hedge and got no copy.
        public let refused: Int

        public var description: String { "\(calls) calls, \(hedges) hedged, \(refused) hedges refused by the budget" }
    }

    public static let defaultPosition = MiddlewarePosition.hedging

    /// How it behaves: the settings as given, held to their ranges.
    public let configuration: Configuration
    private let state: HedgingState
    /// A setting no range holds, refused at each call.
    private let misconfiguration: SluiceError?

    /// A hedger with `configuration`.
    public init(configuration: Configuration = .default) {
        switch configuration.checked() {
        case .success(let checked): (self.configuration, misconfiguration) = (checked, nil)
        case .failure(let error): (self.configuration, misconfiguration) = (configuration, error)
        }
        state = HedgingState()
    }

    /// Calls, hedges and hedges refused over the last 10 s, as the budget counts them.
    public var status: Status { state.status(now: .now) }

    /// - Throws: `.misconfigured` for a setting that is NaN, before anything is sent.
    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        if let misconfiguration { throw misconfiguration }
        let origin = next.urlAsSent(request.url).origin
        let start = ContinuousClock.now
        state.countCall(now: start)
        guard Self.mayHedge(request) else { return try await timed(request, context, next, origin: origin, start: start) }
        let wait = delay(for: origin)
        // No copy past the call's deadline.
        let delay = context.remainingTime.map { $0 <= wait ? Duration.zero : wait } ?? wait
        guard delay > .zero else { return try await timed(request, context, next, origin: origin, start: start) }
        let hedgeSent = SentFlag()
        return try await withThrowingTaskGroup(of: Outcome.self) { group in
            group.addTask { Outcome(result: await Result { try await next(request, context) }, isHedge: false) }
            group.addTask {
                try await Task.sleep(clamping: delay)
                guard state.mayHedge(ratio: configuration.maxExtraRatio, minimumPerSecond: configuration.minimumPerSecond, now: .now) else {
                    return Outcome(result: nil, isHedge: true)
                }
                hedgeSent.value.store(true, ordering: .sequentiallyConsistent)
                var hedge = context
                hedge.isHedge = true
                return Outcome(result: await Result { try await next(request, hedge) }, isHedge: true)
            }
            var failure: (any Error)?
            while let outcome = try await group.next() {
                switch outcome.result {
                case .success(var response)?:
                    group.cancelAll()  // the other copy, wherever it is, or the timer
                    state.record(origin: origin, latency: start.duration(to: .now))
                    if hedgeSent.value.load(ordering: .sequentiallyConsistent) { response.hedges += 1 }
                    return response
                case .failure(let error)?:
                    // A first copy that fails before its hedge is sent ends the call: a hedge is
                    // for a slow answer, not a retry of a failed one.
                    if !outcome.isHedge, !hedgeSent.value.load(ordering: .sequentiallyConsistent) {
                        group.cancelAll()
                        throw error
                    }
                    if failure == nil { failure = error }
                case nil:
                    continue  // the budget said no: only the first copy runs
                }
            }
            throw failure ?? CancellationError()
        }
    }

    /// A call that is not hedged, its latency kept for the percentile.
    private func timed(
        _ request: HTTPRequest, _ context: RequestContext, _ next: Next, origin: String, start: ContinuousClock.Instant
    ) async throws -> HTTPResponse {
        let response = try await next(request, context)
        state.record(origin: origin, latency: start.duration(to: .now))
        return response
    }

    /// The delay before `origin`'s copy.
    func delay(for origin: String) -> Duration {
        switch configuration.delay {
        case .fixed(let delay): delay
        case .percentile(let percentile, let fallback): state.percentile(percentile, of: origin) ?? fallback
        }
    }

    /// Whether `request` may be sent twice.
    static func mayHedge(_ request: HTTPRequest) -> Bool {
        guard request.method.isIdempotent || request.headers.contains("Idempotency-Key")
        else { return false }
        guard !request.streamsResponseBody, request.responseBodyFile == nil else { return false }
        if case .stream(let stream) = request.body { return stream.isReplayable }
        return true
    }

    /// Whether the hedge has been sent, shared by the call's two child tasks.
    private final class SentFlag: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// What one copy (or the timer before the copy) ended with; `nil`: no copy was sent.
    private struct Outcome: Sendable {
        let result: Result<HTTPResponse, any Error>?
        let isHedge: Bool
    }
}

extension Result where Failure == any Error {
    /// The outcome of `body`.
    fileprivate init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// The latencies of each origin and the budget's counts, shared by every copy of the middleware.
final class HedgingState: Sendable {
    private struct Latencies {
        /// The last ``HedgingState/sampleCount`` latencies, in nanoseconds (compared as integers:
        /// a sort of `Duration`s costs several times as much).
        var samples: [Int64] = []
        var next = 0
        /// Latencies recorded in all.
        var recorded = 0
        /// The last percentile computed: which, its value, and `recorded` then.
        var cached: (percentile: Double, value: Duration, at: Int)?
    }

    private struct State {
        var origins = OriginTable<Latencies>(limit: HedgingState.maxOrigins)
        var windowStart: ContinuousClock.Instant
        var calls = 0
        var hedges = 0
        /// The window before this one's counts, which weigh less as this one goes on.
        var previousCalls = 0
        var previousHedges = 0
        /// Hedges refused in this window and the last.
        var refused = 0
        var previousRefused = 0

        /// Calls and hedges over the last ``HedgingState/window``: this window's, and the share of
        /// the previous one's that the last 10 s still cover.
        func counted(now: ContinuousClock.Instant) -> (calls: Double, hedges: Double) {
            let weight = max(0, 1 - (now - windowStart).timeInterval / HedgingState.window.timeInterval)
            return (Double(calls) + Double(previousCalls) * weight, Double(hedges) + Double(previousHedges) * weight)
        }
    }

    /// Latencies kept per origin, and origins kept.
    static let sampleCount = 200
    static let maxOrigins = 1024
    /// The window the budget counts over.
    static let window = Duration.seconds(10)
    /// New latencies after which a percentile is computed again.
    static let recomputeEvery = 10

    private let state: Locked<State>

    /// A state whose first budget window starts at `start`.
    init(start: ContinuousClock.Instant = .now) {
        state = Locked(State(windowStart: start))
    }

    func countCall(now: ContinuousClock.Instant) {
        state.withLock { state in
            Self.roll(&state, now: now)
            state.calls += 1
        }
    }

    /// Whether one more hedge stays within `ratio` of the calls, or `minimumPerSecond` a second of
    /// the window if that is more; counts it when it does, and counts a refusal when it does not.
    func mayHedge(ratio: Double, minimumPerSecond: Double = 0, now: ContinuousClock.Instant) -> Bool {
        state.withLock { state in
            Self.roll(&state, now: now)
            let counted = state.counted(now: now)
            let allowed = max(ratio * counted.calls, minimumPerSecond * Self.window.timeInterval)
            guard counted.hedges + 1 <= allowed else {
                state.refused += 1
                return false
            }
            state.hedges += 1
            return true
        }
    }

    func counts(now: ContinuousClock.Instant) -> (calls: Int, hedges: Int) {
        let status = status(now: now)
        return (status.calls, status.hedges)
    }

    func status(now: ContinuousClock.Instant) -> HedgingMiddleware.Status {
        state.withLock { state in
            Self.roll(&state, now: now)
            let counted = state.counted(now: now)
            return HedgingMiddleware.Status(
                calls: Int(counted.calls.rounded()), hedges: Int(counted.hedges.rounded()), refused: state.refused + state.previousRefused)
        }
    }

    func record(origin: String, latency: Duration) {
        let nanoseconds = latency.components.seconds &* 1_000_000_000 &+ latency.components.attoseconds / 1_000_000_000
        state.withLock { state in
            var latencies = state.origins[origin] ?? Latencies()
            if latencies.samples.count < Self.sampleCount {
                latencies.samples.append(nanoseconds)
            } else {
                latencies.samples[latencies.next] = nanoseconds
                latencies.next = (latencies.next + 1) % Self.sampleCount
            }
            latencies.recorded += 1
            state.origins.store(latencies, for: origin)
        }
    }

    /// The `percentile` of `origin`'s latencies; `nil` with fewer than 20. Computed again after
    /// every ``recomputeEvery`` new latencies, not on each call: a sort of 200 per call would cost
    /// more than the hedge saves.
    func percentile(_ percentile: Double, of origin: String) -> Duration? {
        enum Known {
            case cached(Duration)
            case samples([Int64], recorded: Int)
        }
        let known = state.withLock { state -> Known? in
            guard let latencies = state.origins[origin], latencies.samples.count >= 20 else { return nil }
            if let cached = latencies.cached, cached.percentile == percentile, latencies.recorded - cached.at < Self.recomputeEvery {
                return .cached(cached.value)
            }
            return .samples(latencies.samples, recorded: latencies.recorded)
        }
        guard case .samples(let samples, let recorded) = known else {
            if case .cached(let value) = known { return value }
            return nil
        }
        let sorted = samples.sorted()
        let index = min(sorted.count - 1, max(0, Int(clamping: (Double(sorted.count) * percentile).rounded(.up)) - 1))
        let value = Duration.nanoseconds(sorted[index])
        state.withLock { state in
            guard var latencies = state.origins[origin] else { return }
            latencies.cached = (percentile, value, recorded)
            state.origins.store(latencies, for: origin)
        }
        return value
    }

    /// A new window once the last is over: the budget counts recent calls only.
    private static func roll(_ state: inout State, now: ContinuousClock.Instant) {
        let elapsed = now - state.windowStart
        guard elapsed >= window else { return }
        // Just past one window, the one that ended still counts, less and less; past two, nothing.
        let adjacent = elapsed < window * 2
        state.previousCalls = adjacent ? state.calls : 0
        state.previousHedges = adjacent ? state.hedges : 0
        state.previousRefused = adjacent ? state.refused : 0
        state.refused = 0
        state.windowStart = adjacent ? state.windowStart + window : now
        state.calls = 0
        state.hedges = 0
    }
}
