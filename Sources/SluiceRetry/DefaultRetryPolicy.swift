import Foundation
import Sluice

/// The retry rules a careful client follows:
///
/// - at most ``Configuration/maximumAttempts`` attempts (3), with exponential backoff and full
///   jitter (a random delay between 0 and `min(cap, base × 2^(attempt−1))`; base 0.2 s, cap 30 s);
/// - `Retry-After` honoured in both forms (delta-seconds, and an HTTP date in any of its three
///   formats), capped at 5 minutes; an invalid value (`-1`, `+1`, `1.0`, non-ASCII digits) is ignored;
/// - statuses 408, 425, 429, 500, 502, 503, 504, and transport errors that say the request may not
///   have arrived: a refused or reset connection, a timeout, a connection closed before any
///   response; never a TLS failure or an unknown host;
/// - only idempotent methods, unless the request has an `Idempotency-Key` field or
///   `HTTPRequest.retriesNonIdempotent`; and only bodies that can be sent again (files can).
///
/// ```swift
/// import Sluice
/// import SluiceRetry
///
/// let policy = DefaultRetryPolicy(configuration: .init(maximumAttempts: 5, baseDelay: .milliseconds(100)))
/// builder.add(RetryMiddleware(policy: policy, budget: RetryBudget()))
/// ```
public struct DefaultRetryPolicy: RetryPolicy {
    /// How often, after how long, and what is retried.
    public struct Configuration: Sendable {
        /// Attempts at most, the first included; 1 or less retries nothing.
        public var maximumAttempts: Int
        /// The wait before the first retry; it doubles after each. Each delay is held to
        /// 0...100 years.
        public var baseDelay: Duration
        /// The longest wait between attempts.
        public var maximumDelay: Duration
        /// The longest `Retry-After` obeyed; longer ones are cut to this.
        public var retryAfterCap: Duration
        /// The statuses retried.
        public var retryableStatuses: Set<Int>
        /// A number in [0, 1) for the jitter (injectable for tests); held to 0...1, NaN is 0.
        public var random: @Sendable () -> Double
        /// The wall clock, for `Retry-After` dates (injectable for tests).
        public var clock: @Sendable () -> Date

        /// Settings with each value given, or its default.
        public init(
            maximumAttempts: Int = 3, baseDelay: Duration = .milliseconds(200), maximumDelay: Duration = .seconds(30),
            retryAfterCap: Duration = .seconds(300), retryableStatuses: Set<Int> = [408, 425, 429, 500, 502, 503, 504],
            random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
            clock: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.maximumAttempts = maximumAttempts
            self.baseDelay = baseDelay
            self.maximumDelay = maximumDelay
            self.retryAfterCap = retryAfterCap
            self.retryableStatuses = retryableStatuses
            self.random = random
            self.clock = clock
        }

        /// 3 attempts, 0.2 s base, 30 s cap, Retry-After up to 5 minutes.
        public static let `default` = Configuration()
    }

    /// How it behaves.
    public let configuration: Configuration

    /// One with `configuration`.
    public init(configuration: Configuration = .default) {
        self.configuration = configuration
    }

    public func decision(for request: HTTPRequest, attempt: Int, outcome: Result<HTTPResponse, any Error>) -> RetryDecision {
        guard attempt < configuration.maximumAttempts, mayResend(request) else { return .stop }
        switch outcome {
        case .success(let response):
            guard configuration.retryableStatuses.contains(response.status.code) else { return .stop }
            if let value = response.headers["Retry-After"], let delay = retryAfter(value) { return .retry(after: delay) }
            return .retry(after: backoff(attempt: attempt))
        case .failure(let error):
            guard Self.isRetryable(error) else { return .stop }
            return .retry(after: backoff(attempt: attempt))
        }
    }

    /// Whether the request may be sent again: an idempotent method (or an opt-in) and a body that
    /// can be read twice.
    func mayResend(_ request: HTTPRequest) -> Bool {
        let allowed = request.method.isIdempotent || request.headers.contains("Idempotency-Key") || request.retriesNonIdempotent
        return allowed && request.body.isReplayable
    }

    /// Transport failures after which the request may not have reached the server.
    static func isRetryable(_ error: any Error) -> Bool {
        if error is CancellationError { return false }
        guard let error = error as? SluiceError else { return false }
        switch error.code {
        case .cannotConnect, .connectionLost, .timedOut: return true
        default: return false  // TLS, DNS, invalid input, too large, offline…
        }
    }

    /// Full jitter: uniform in [0, min(cap, base × 2^(attempt−1))).
    public func backoff(attempt: Int) -> Duration {
        // In seconds as Doubles: a base delay of years doubled 40 times overflows `Duration`.
        let exponent = Double(min(max(attempt, 1) - 1, 40))
        let base = configuration.baseDelay.clampedWait.timeInterval
        let ceiling = min(configuration.maximumDelay.clampedWait.timeInterval, base * pow(2, exponent))
        let random = configuration.random().clamped(to: 0...1) ?? 0
        return .clampedSeconds(ceiling * random)
    }

    /// The delay a `Retry-After` value asks for, capped; nil when it is invalid.
    public func retryAfter(_ value: String) -> Duration? {
        let text = value.trimmingOptionalWhitespace()
        let delay: Duration
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            guard text.utf8.count <= 12, let seconds = Int64(text) else { return configuration.retryAfterCap.clampedWait }
            delay = .seconds(seconds)
        } else if let date = HTTPDate.parse(text) {
            let seconds = date.timeIntervalSince(configuration.clock())
            // Compared as a Double first: a date far enough ahead overflows Int64 milliseconds.
            let cap = configuration.retryAfterCap.clampedWait
            guard seconds < Double(cap.components.seconds) else { return cap }
            delay = seconds > 0 ? .milliseconds(Int64(seconds * 1_000)) : .zero
        } else {
            return nil
        }
        return min(delay, configuration.retryAfterCap.clampedWait)
    }
}
