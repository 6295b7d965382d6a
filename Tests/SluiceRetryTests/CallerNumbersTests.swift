import Foundation
import Sluice
import SluiceRetry
import SluiceTestSupport
import SluiceTesting
import Testing

/// SluiceRetry's public numbers driven with every hostile value of ``CallerNumbers``: delays are
/// held to 0...100 years, NaN in a budget is `.misconfigured` before anything is sent, and nothing
/// traps.
@Suite("Caller numbers: SluiceRetry")
struct RetryCallerNumbersTests {
    static let url = URL(string: "https://api.example.com/x")!

    @Test(
        .covers(
            "DefaultRetryPolicy.Configuration.baseDelay", "DefaultRetryPolicy.Configuration.maximumDelay",
            "DefaultRetryPolicy.Configuration.retryAfterCap"),
        arguments: CallerNumbers.durations)
    func delays(_ delay: Duration) {
        let policies = [
            DefaultRetryPolicy(configuration: .init(baseDelay: delay, random: { 0.999 })),
            DefaultRetryPolicy(configuration: .init(maximumDelay: delay, random: { 0.999 })),
            DefaultRetryPolicy(configuration: .init(baseDelay: delay, maximumDelay: delay, random: { 0.999 })),
        ]
        for policy in policies {
            for attempt in CallerNumbers.ints {
                let backoff = policy.backoff(attempt: attempt)
                #expect(backoff >= .zero && backoff <= .seconds(3_155_760_000))
            }
        }
        let capped = DefaultRetryPolicy(configuration: .init(retryAfterCap: delay))
        for value in ["0", "120", "999999999999", "Sun, 06 Nov 9999 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT"] {
            let wait = capped.retryAfter(value)
            #expect(wait.map { $0 >= .zero && $0 <= delay.clampedWait } == true)
        }
    }

    /// Attempts: 1 or less retries nothing; `Int.max` retries while the budget allows.
    @Test(
        .covers(
            "DefaultRetryPolicy.Configuration.maximumAttempts", "DefaultRetryPolicy.backoff(attempt:) attempt",
            "DefaultRetryPolicy.decision(for:attempt:outcome:) attempt", "RetryPolicy.decision(for:attempt:outcome:) attempt"),
        arguments: CallerNumbers.ints)
    func attempts(_ count: Int) async throws {
        let policy = DefaultRetryPolicy(configuration: .init(maximumAttempts: count, baseDelay: .zero))
        let failure = HTTPResponse(status: .serviceUnavailable)
        for attempt in CallerNumbers.ints {
            let decision = policy.decision(for: HTTPRequest(url: Self.url), attempt: attempt, outcome: .success(failure))
            #expect((decision == .stop) == (attempt >= count))
            #expect(policy.backoff(attempt: attempt) == .zero)
        }
        let transport = MockTransport { _, _ in .status(.serviceUnavailable) }
        let client = Client(
            transport: transport,
            middlewares: [RetryMiddleware(policy: policy, budget: RetryBudget(configuration: .init(minimumPerSecond: 5.0 / 3_600, window: .seconds(3_600))))])
        let response = try await client.send(HTTPRequest(url: Self.url))
        #expect(response.status == .serviceUnavailable)
        // The budget allows 5 retries in its hour: a window that cannot roll over while a loaded
        // machine runs the test (a 10 s one did, and let more through).
        #expect(transport.requests.count == min(max(count, 1), 6))
    }

    /// Any set of statuses, numbers no server sends included.
    @Test(.covers("DefaultRetryPolicy.Configuration.retryableStatuses"))
    func statuses() {
        let policy = DefaultRetryPolicy(configuration: .init(retryableStatuses: Set(CallerNumbers.ints)))
        #expect(policy.decision(for: HTTPRequest(url: Self.url), attempt: 1, outcome: .success(HTTPResponse(status: 503))) == .stop)
        #expect(policy.decision(for: HTTPRequest(url: Self.url), attempt: 1, outcome: .success(HTTPResponse(status: 0))) != .stop)
    }

    @Test(.covers("RetryBudget.Configuration.ratio", "RetryBudget.Configuration.minimumPerSecond"), arguments: CallerNumbers.doubles)
    func budgetNumbers(_ value: Double) async throws {
        for configuration in [RetryBudget.Configuration(ratio: value), RetryBudget.Configuration(minimumPerSecond: value)] {
            let transport = MockTransport { _, _ in .status(.serviceUnavailable) }
            let budget = RetryBudget(configuration: configuration)
            let client = Client(
                transport: transport, middlewares: [RetryMiddleware(policy: DefaultRetryPolicy(configuration: .init(baseDelay: .zero)), budget: budget)])
            let outcome = await Result { try await client.send(HTTPRequest(url: Self.url)) }
            if value.isNaN {
                #expect { try outcome.get() } throws: {
                    ($0 as? SluiceError)?.code == .misconfigured && "\($0)".contains("RetryBudget.Configuration.") && "\($0)".contains("is NaN")
                }
                #expect(transport.requests.isEmpty)
            } else {
                #expect(try outcome.get().status == .serviceUnavailable)
                #expect((0...1000).contains(budget.configuration.ratio) && (0...1_000_000).contains(budget.configuration.minimumPerSecond))
            }
        }
    }

    @Test(.covers("RetryBudget.Configuration.window", "RetryDecision.retry(after:)"), arguments: CallerNumbers.durations)
    func windowsAndDelays(_ duration: Duration) async throws {
        let budget = RetryBudget(configuration: .init(ratio: 1, window: duration))
        #expect(budget.configuration.window >= .milliseconds(1) && budget.configuration.window <= .seconds(3_155_760_000))
        // A policy that asks for this delay: a past or zero one retries at once, a long one is
        // refused by the call's deadline, never slept on.
        struct Fixed: RetryPolicy {
            let delay: Duration
            func decision(for request: HTTPRequest, attempt: Int, outcome: Result<HTTPResponse, any Error>) -> RetryDecision {
                attempt < 2 ? .retry(after: delay) : .stop
            }
        }
        let transport = MockTransport { _, _ in .status(.serviceUnavailable) }
        let client = Client(transport: transport, middlewares: [RetryMiddleware(policy: Fixed(delay: duration), budget: budget)])
        let started = ContinuousClock.now
        _ = try await client.send(HTTPRequest(url: Self.url), timeout: .seconds(30))
        #expect(transport.requests.count == (duration < .seconds(30) ? 2 : 1))
        #expect(started.duration(to: .now) < .seconds(30))
    }

    /// A response's count of attempts is a record: any value is kept and prints, and only the
    /// attempts after a first are reported as retries (none for 1 or less, never a negative count).
    @Test(.covers("HTTPResponse.attempts"), arguments: CallerNumbers.ints)
    func attempts(_ count: Int) {
        var response = HTTPResponse(status: .ok)
        response.attempts = count
        #expect(response.attempts == count)
        #expect("\(response)".contains("200"))
        let reported = response.attachments.reported
        if count > 1 {
            #expect(reported.count == 1 && reported.first?.name == "retries" && reported.first?.value == .count(count - 1))
        } else {
            #expect(reported.isEmpty)
        }
    }
}
