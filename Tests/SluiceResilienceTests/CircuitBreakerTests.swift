import Foundation
import Sluice
import Testing

@testable import SluiceResilience

/// The circuit's rules alone, over a clock the test moves.
@Suite("CircuitBreaker")
struct CircuitBreakerTests {
    let start = ContinuousClock.now
    let origin = "http://a.example:80"

    func breaker(
        window: CircuitBreakerMiddleware.Configuration.Window = .calls(10), threshold: Double = 0.5, minimumCalls: Int = 10,
        probes: Int = 2, maxOrigins: Int = 100
    ) -> CircuitBreaker {
        CircuitBreaker(
            rules: .init(
                window: window, failureRateThreshold: threshold, minimumCalls: minimumCalls, openDuration: .seconds(30),
                halfOpenProbes: probes, maxOrigins: maxOrigins))
    }

    /// One call at `at` seconds from the start: admitted, then recorded; the event it made.
    @discardableResult
    func call(_ breaker: CircuitBreaker, failing: Bool, at seconds: Double = 0, origin: String? = nil) -> CircuitBreakerEvent? {
        let now = start + .milliseconds(Int(seconds * 1000))
        guard case .allowed(let isProbe) = breaker.admit(origin ?? self.origin, now: now).0 else { return nil }
        return breaker.record(origin ?? self.origin, failed: failing, isProbe: isProbe, now: now)
    }

    @Test func itOpensOnlyWithTheMinimumOfCallsAndAtTheThreshold() {
        let breaker = breaker()
        for _ in 0..<9 { #expect(call(breaker, failing: true) == nil) }
        #expect(breaker.state(of: origin) == .closed)  // 9 of 9 failed, but 10 are needed
        let opened = call(breaker, failing: true)
        #expect(opened == CircuitBreakerEvent(origin: origin, from: .closed, to: .open(until: start + .seconds(30)), at: start))
        // 4 of 10 failing stays closed at a threshold of half; the fifth opens it.
        let other = self.breaker()
        for index in 0..<10 { call(other, failing: index >= 6) }
        #expect(other.state(of: origin) == .closed)
        call(other, failing: true)  // the window is the last 10: now 5 failures of 10
        #expect(other.state(of: origin) == .open(until: start + .seconds(30)))
    }

    @Test func anOpenCircuitRejectsThenLetsItsProbesThroughAndClosesWhenTheyPass() {
        let breaker = breaker(minimumCalls: 2)
        call(breaker, failing: true)
        call(breaker, failing: true)
        #expect(breaker.admit(origin, now: start + .seconds(29)).0 == .rejected(until: start + .seconds(30), failures: 2, calls: 2))
        // After the wait: half-open, two probes, a third call refused while they are out.
        let (first, event) = breaker.admit(origin, now: start + .seconds(30))
        #expect(first == .allowed(isProbe: true))
        #expect(event?.from == .open(until: start + .seconds(30)) && event?.to == .halfOpen)
        #expect(breaker.admit(origin, now: start + .seconds(30)).0 == .allowed(isProbe: true))
        #expect(breaker.admit(origin, now: start + .seconds(30)).0 == .rejected(until: nil, failures: 2, calls: 2))
        #expect(breaker.record(origin, failed: false, isProbe: true, now: start + .seconds(31)) == nil)
        let closed = breaker.record(origin, failed: false, isProbe: true, now: start + .seconds(31))
        #expect(closed?.to == .closed)
        #expect(breaker.state(of: origin) == .closed)
        // Closed afresh: the old failures are gone, one failure does not open it.
        call(breaker, failing: true, at: 32)
        #expect(breaker.state(of: origin) == .closed)
    }

    @Test func aFailedProbeOpensItAgainAndACancelledProbeFreesItsPlace() {
        let breaker = breaker(minimumCalls: 1, probes: 1)
        call(breaker, failing: true)
        #expect(breaker.admit(origin, now: start + .seconds(30)).0 == .allowed(isProbe: true))
        breaker.release(origin, isProbe: true)  // cancelled: neither outcome
        #expect(breaker.admit(origin, now: start + .seconds(30)).0 == .allowed(isProbe: true))
        let reopened = breaker.record(origin, failed: true, isProbe: true, now: start + .seconds(31))
        #expect(reopened?.from == .halfOpen && reopened?.to == .open(until: start + .seconds(61)))
    }

    @Test func aTimeWindowForgetsWhatIsOlderThanIt() {
        let breaker = breaker(window: .duration(.seconds(10)), minimumCalls: 4)
        for second in 0..<3 { call(breaker, failing: true, at: Double(second)) }
        // Twelve seconds later the three failures have left the window: one more is one of one.
        call(breaker, failing: true, at: 14)
        #expect(breaker.state(of: origin) == .closed)
        for second in 15..<18 { call(breaker, failing: true, at: Double(second)) }
        #expect(breaker.state(of: origin) == .open(until: start + .seconds(47)))
    }

    @Test func atMostMaxOriginsAreKeptTheOneUsedLongestAgoForgottenFirst() {
        let breaker = breaker(minimumCalls: 1, maxOrigins: 2)
        call(breaker, failing: true, origin: "http://a:80")
        call(breaker, failing: false, origin: "http://b:80")
        call(breaker, failing: false, origin: "http://c:80")
        #expect(breaker.originCount == 2)
        #expect(breaker.state(of: "http://a:80") == .closed)  // forgotten, so closed again
    }
}
