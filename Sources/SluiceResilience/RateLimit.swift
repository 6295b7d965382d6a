/// A rate: at most `requests` calls per `period`, of which `burst` may go at once after a quiet
/// spell. Kept by ``RateLimitMiddleware`` as a generic cell rate (GCRA): one call every
/// `period ÷ requests`, with `burst` calls of slack, so calls are spread over the period rather
/// than let through all at its start.
///
/// ```swift
/// import SluiceResilience
///
/// let github = RateLimit(requests: 5_000, per: .seconds(3_600))      // 5,000 an hour
/// let payments = RateLimit(requests: 100, per: .seconds(1), burst: 10)
/// print(payments)   // 100 per 1.0 s, burst 10
/// ```
public struct RateLimit: Sendable, Hashable, CustomStringConvertible {
    /// Calls per ``period``, 1...1,000,000,000.
    public let requests: Int
    /// The period ``requests`` are counted over, 1 ms...100 years.
    public let period: Duration
    /// How many calls may go at once after a quiet spell, 1...1,000,000,000.
    public let burst: Int

    /// `requests` per `period`, `burst` of them at once (`requests` unless given). Each number is
    /// held to its range: a count below 1 is 1, a period below 1 ms is 1 ms, one over 100 years
    /// (`.seconds(.max)`) is 100 years.
    public init(requests: Int, per period: Duration, burst: Int? = nil) {
        self.requests = requests.clamped(to: 1...1_000_000_000)
        self.period = max(period, .milliseconds(1)).clampedWait
        self.burst = (burst ?? requests).clamped(to: 1...1_000_000_000)
    }

    /// The time between two calls at the steady rate: `period ÷ requests`.
    package var interval: Duration { period / requests }

    /// Calls per second at the steady rate.
    package var perSecond: Double { Double(requests) / period.timeInterval }

    /// `100 per 1.0 s, burst 10`.
    public var description: String {
        "\(requests) per \(String(format: "%.1f s", period.timeInterval)), burst \(burst)"
    }
}
