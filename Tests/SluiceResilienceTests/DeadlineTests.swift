import Foundation
import Sluice
import SluiceCurl
import SluiceRetry
import SluiceTestSupport
import SluiceTesting
import Testing

@testable import SluiceResilience

/// No call outlives its deadline: each stage obeys it on its own, with no client watchdog above
/// them (a bare `Pipeline`).
@Suite("Deadlines", .timeLimit(.minutes(1)))
struct DeadlineTests {
    /// Six calls with 300 ms to live, through retry, hedging, the breaker, a concurrency limit of 2
    /// (so four wait) and the deadline header, to a server that holds every answer for 30 s. Each
    /// ends `.timedOut` at its deadline (give or take a busy machine's slack), whichever stage held it:
    /// curl's transfer, the limit's queue, or retry's back-off.
    @Test func noCallOutlivesItsDeadline() async throws {
        let held = TestGate()
        defer { held.open() }
        let server = try MockWebServer.holding(until: held, body: "late")
        let pipeline = Pipeline(
            middlewares: [
                RetryMiddleware(),
                HedgingMiddleware(configuration: .init(delay: .fixed(.milliseconds(50)), maxExtraRatio: 1)),
                CircuitBreakerMiddleware(),
                ConcurrencyLimitMiddleware(configuration: .init(initialLimit: 2, minLimit: 2, maxLimit: 2)),
                DeadlineHeaderMiddleware(),
            ], transport: CurlTransport())
        // Far under the 30 s the server holds each answer: a loaded machine may wake a timer late.
        let slack = TestTiming.scaled(.seconds(10))
        try await withThrowingTaskGroup(of: (code: SluiceError.Code?, late: Duration).self) { group in
            for index in 0..<6 {
                group.addTask {
                    let deadline = ContinuousClock.now + .milliseconds(300)
                    do {
                        _ = try await pipeline.send(HTTPRequest(url: server.url("/\(index)")), context: RequestContext(deadline: deadline))
                        return (nil, deadline.duration(to: .now))
                    } catch {
                        return ((error as? SluiceError)?.code, deadline.duration(to: .now))
                    }
                }
            }
            for try await outcome in group {
                #expect(outcome.code == .timedOut)
                #expect(outcome.late < slack, "ended \(outcome.late) after its deadline")
            }
        }
        // What reached the server (on a loaded machine, maybe nothing before the deadline) carried
        // the time it had left.
        #expect(server.requests.allSatisfy { $0.header("X-Request-Deadline").flatMap(Int.init).map { $0 <= 300 } ?? false })
    }
}
