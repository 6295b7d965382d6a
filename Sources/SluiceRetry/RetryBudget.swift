import Foundation
import Sluice

/// A cap on retries, shared by every request of a client, so an outage cannot multiply the load:
/// within each window (10 s), retries may be at most ``Configuration/ratio`` of the requests
/// (20%), or ``Configuration/minimumPerSecond`` per second of the window (10/s) if that is more.
///
/// ```swift
/// import Sluice
/// import SluiceRetry
///
/// let budget = RetryBudget()                       // one per client
/// builder.add(RetryMiddleware(policy: DefaultRetryPolicy(), budget: budget))
/// ```
public final class RetryBudget: Sendable {
    /// How many retries the budget allows.
    public struct Configuration: Sendable {
        /// Retries allowed per request sent, over the window.
        public var ratio: Double
        /// Retries allowed each second whatever the traffic.
        public var minimumPerSecond: Double
        /// How far back requests and retries are counted.
        public var window: Duration

        /// Settings with each value given, or its default.
        public init(ratio: Double = 0.2, minimumPerSecond: Double = 10, window: Duration = .seconds(10)) {
            self.ratio = ratio
            self.minimumPerSecond = minimumPerSecond
            self.window = window
        }

        /// 20% of requests, at least 10 a second, over 10-second windows.
        public static let `default` = Configuration()
    }

    private struct State {
        var windowStart = ContinuousClock.now
        var requests = 0
        var retries = 0
        var refused = 0
    }

    /// How it behaves: the settings as given, held to their ranges.
    public let configuration: Configuration
    private let state = Locked(State())
    /// A setting no range holds (NaN): `RetryMiddleware` refuses each call with it.
    let misconfiguration: SluiceError?

    /// One with `configuration`: the ratio held to 0...1,000, the minimum to 0...1,000,000 a
    /// second, the window to 1 ms...100 years. A ratio or minimum that is NaN is `.misconfigured`
    /// at each call of the retry middleware that uses the budget.
    public init(configuration: Configuration = .default) {
        var checked = configuration
        checked.window = max(.milliseconds(1), configuration.window.clampedWait)
        let ratio = configuration.ratio.clamped(to: 0...1000)
        let minimum = configuration.minimumPerSecond.clamped(to: 0...1_000_000)
        checked.ratio = ratio ?? 0
        checked.minimumPerSecond = minimum ?? 0
        self.configuration = checked
        misconfiguration =
            ratio == nil
            ? .notANumber("RetryBudget.Configuration.ratio", expected: "retries per request in 0...1000")
            : minimum == nil ? .notANumber("RetryBudget.Configuration.minimumPerSecond", expected: "retries a second in 0...1000000") : nil
    }

    /// Counts a request (its first attempt).
    func recordRequest() {
        state.withLock { state in
            roll(&state)
            state.requests += 1
        }
    }

    /// Takes one retry from the budget; false when it is spent.
    func withdraw() -> Bool {
        state.withLock { state in
            roll(&state)
            let windowSeconds = configuration.window.timeInterval
            let allowed = max(configuration.ratio * Double(state.requests), configuration.minimumPerSecond * windowSeconds)
            guard Double(state.retries) + 1 <= allowed else {
                state.refused += 1
                return false
            }
            state.retries += 1
            return true
        }
    }

    /// Retries the budget refused so far in this window.
    public var refusedRetries: Int { state.withLock { $0.refused } }

    private func roll(_ state: inout State) {
        let now = ContinuousClock.now
        if now - state.windowStart >= configuration.window {
            state = State(windowStart: now)
        }
    }
}
