import Foundation
import Sluice
import SluiceTestSupport
import SluiceTesting
import Testing

@testable import SluiceResilience

/// SluiceResilience's public numbers driven with every hostile value of ``CallerNumbers``: each
/// is held to its documented range, or NaN is `.misconfigured` naming the setting before anything
/// is sent; nothing traps.
@Suite("Caller numbers: SluiceResilience")
struct ResilienceCallerNumbersTests {
    static let url = URL(string: "https://api.example.com/x")!

    /// Sends `calls` GETs through `middleware` over a transport that answers 200, or 503 every
    /// third call; the outcome of each.
    static func run(_ middleware: any Middleware, calls: Int = 30) async -> (results: [Result<HTTPResponse, any Error>], sent: Int) {
        let count = Locked(0)
        let transport = MockTransport { _, _ in
            let call = count.withLock { count -> Int in
                count += 1
                return count
            }
            return call % 3 == 0 ? .status(.serviceUnavailable) : .status(.ok)
        }
        let client = Client(transport: transport, middlewares: [middleware])
        var results: [Result<HTTPResponse, any Error>] = []
        for _ in 0..<calls {
            results.append(await Result { try await client.send(HTTPRequest(url: url), timeout: .seconds(60)) })
        }
        return (results, transport.requests.count)
    }

    /// Every call refused with `.misconfigured` naming `setting`, nothing sent.
    static func expectRefused(_ outcome: (results: [Result<HTTPResponse, any Error>], sent: Int), naming setting: String) {
        #expect(outcome.sent == 0)
        for result in outcome.results {
            #expect { try result.get() } throws: {
                let error = $0 as? SluiceError
                return error?.code == .misconfigured && error?.message.contains(setting) == true && error?.message.contains("NaN") == true
            }
        }
    }

    /// Every call answered by the transport (200 or 503), none refused.
    static func expectServed(_ outcome: (results: [Result<HTTPResponse, any Error>], sent: Int)) {
        for result in outcome.results { #expect((try? result.get()).map { [200, 503].contains($0.status.code) } == true, "\(result)") }
    }

    // MARK: Hedging

    /// A response's count of hedges is a record: any value is kept and reported as it is, a
    /// count of 0 or less not at all.
    @Test(.covers("HTTPResponse.hedges"), arguments: CallerNumbers.ints)
    func hedgeCounts(_ count: Int) {
        var response = HTTPResponse(status: .ok)
        response.hedges = count
        #expect(response.hedges == count)
        #expect(response.attachments.reported.map(\.value) == (count > 0 ? [.count(count)] : []))
    }

    @Test(.covers("HedgingMiddleware.Configuration.Delay.fixed(_:)"), arguments: CallerNumbers.durations)
    func hedgingFixedDelay(_ delay: Duration) async throws {
        let hedger = HedgingMiddleware(configuration: .init(delay: .fixed(delay)))
        #expect(hedger.configuration.delay == .fixed(delay.clampedWait))
        Self.expectServed(await Self.run(hedger))
    }

    /// The percentile path runs once 20 latencies are known: 30 calls reach it.
    @Test(.covers("HedgingMiddleware.Configuration.Delay.percentile(_:fallback:)"), arguments: CallerNumbers.doubles)
    func hedgingPercentile(_ percentile: Double) async throws {
        for fallback in CallerNumbers.durations {
            let hedger = HedgingMiddleware(configuration: .init(delay: .percentile(percentile, fallback: fallback)))
            if percentile.isNaN {
                Self.expectRefused(await Self.run(hedger, calls: 2), naming: "HedgingMiddleware.Configuration.delay's percentile")
            } else {
                #expect(hedger.configuration.delay == .percentile(min(1, max(0, percentile)), fallback: fallback.clampedWait))
                Self.expectServed(await Self.run(hedger))
            }
        }
    }

    @Test(.covers("HedgingMiddleware.Configuration.maxExtraRatio", "HedgingMiddleware.Configuration.minimumPerSecond"), arguments: CallerNumbers.doubles)
    func hedgingBudget(_ value: Double) async throws {
        let ratio = HedgingMiddleware(configuration: .init(maxExtraRatio: value))
        let floor = HedgingMiddleware(configuration: .init(minimumPerSecond: value))
        if value.isNaN {
            Self.expectRefused(await Self.run(ratio, calls: 2), naming: "HedgingMiddleware.Configuration.maxExtraRatio")
            Self.expectRefused(await Self.run(floor, calls: 2), naming: "HedgingMiddleware.Configuration.minimumPerSecond")
        } else {
            #expect(ratio.configuration.maxExtraRatio == min(1, max(0, value)))
            #expect(floor.configuration.minimumPerSecond == min(1000, max(0, value)))
            Self.expectServed(await Self.run(ratio))
            Self.expectServed(await Self.run(floor))
        }
    }

    // MARK: The circuit breaker

    static func breakerCase(_ configuration: CircuitBreakerMiddleware.Configuration) async -> CircuitBreakerMiddleware {
        let breaker = CircuitBreakerMiddleware(configuration: configuration)
        for result in await run(breaker).results {
            // Served, or failed fast by an open circuit: never anything else.
            if case .failure(let error) = result { #expect((error as? SluiceError)?.code == .circuitOpen) }
        }
        return breaker
    }

    @Test(
        .covers(
            "CircuitBreakerMiddleware.Configuration.Window.calls(_:)", "CircuitBreakerMiddleware.Configuration.minimumCalls",
            "CircuitBreakerMiddleware.Configuration.halfOpenProbes", "CircuitBreakerMiddleware.Configuration.maxOrigins"),
        arguments: CallerNumbers.ints)
    func breakerCounts(_ count: Int) async throws {
        _ = await Self.breakerCase(.init(window: .calls(count)))
        _ = await Self.breakerCase(.init(minimumCalls: count))
        _ = await Self.breakerCase(.init(halfOpenProbes: count, clock: { .now + .seconds(3600) }))
        _ = await Self.breakerCase(.init(maxOrigins: count))
    }

    @Test(
        .covers(
            "CircuitBreakerMiddleware.Configuration.Window.duration(_:)", "CircuitBreakerMiddleware.Configuration.openDuration",
            "CircuitState.open(until:)"),
        arguments: CallerNumbers.durations)
    func breakerDurations(_ duration: Duration) async throws {
        _ = await Self.breakerCase(.init(window: .duration(duration)))
        let breaker = await Self.breakerCase(.init(window: .calls(3), failureRateThreshold: 0.1, minimumCalls: 1, openDuration: duration))
        // The circuit opened on the first 503; it stays open for the duration held to 0...100 years.
        if case .open(let until) = breaker.state(of: Self.url) {
            #expect(ContinuousClock.now.duration(to: until) <= duration.clampedWait)
            #expect("\(CircuitState.open(until: until))".contains("open"))
        } else {
            #expect(duration.clampedWait < .seconds(60))  // closed again only when the open time was short
        }
        for instant in CallerNumbers.instants { #expect(!"\(CircuitState.open(until: instant))".isEmpty) }
    }

    @Test(.covers("CircuitBreakerMiddleware.Configuration.failureRateThreshold"), arguments: CallerNumbers.doubles)
    func breakerThreshold(_ threshold: Double) async throws {
        let breaker = CircuitBreakerMiddleware(configuration: .init(failureRateThreshold: threshold))
        if threshold.isNaN {
            Self.expectRefused(await Self.run(breaker, calls: 2), naming: "CircuitBreakerMiddleware.Configuration.failureRateThreshold")
        } else {
            _ = await Self.breakerCase(.init(failureRateThreshold: threshold))
        }
    }

    // MARK: The concurrency limit

    static func limitCase(_ configuration: ConcurrencyLimitMiddleware.Configuration) async -> ConcurrencyLimitMiddleware {
        let limit = ConcurrencyLimitMiddleware(configuration: configuration)
        Self.expectServed(await run(limit))
        let status = limit.status(of: url)
        #expect(ConcurrencyLimitMiddleware.limits.contains(status.limit))
        #expect(status.inFlight == 0)
        return limit
    }

    @Test(
        .covers(
            "ConcurrencyLimitMiddleware.Configuration.initialLimit", "ConcurrencyLimitMiddleware.Configuration.minLimit",
            "ConcurrencyLimitMiddleware.Configuration.maxLimit", "ConcurrencyLimitMiddleware.Configuration.maxOrigins",
            "ConcurrencyLimitMiddleware.Configuration.WhenLimited.wait(maxWaiting:)"),
        arguments: CallerNumbers.ints)
    func limitCounts(_ count: Int) async throws {
        _ = await Self.limitCase(.init(initialLimit: count))
        _ = await Self.limitCase(.init(minLimit: count))
        _ = await Self.limitCase(.init(maxLimit: count))
        _ = await Self.limitCase(.init(initialLimit: count, minLimit: count, maxLimit: count))
        _ = await Self.limitCase(.init(maxOrigins: count))
        _ = await Self.limitCase(.init(whenLimited: .wait(maxWaiting: count)))
        for probeInterval in [count] {
            _ = await Self.limitCase(.init(algorithm: .gradient(probeInterval: probeInterval)))
        }
    }

    @Test(
        .covers(
            "ConcurrencyLimitMiddleware.Configuration.Algorithm.aimd(backoffRatio:timeout:)",
            "ConcurrencyLimitMiddleware.Configuration.Algorithm.gradient(tolerance:smoothing:probeInterval:)"),
        arguments: CallerNumbers.doubles)
    func limitAlgorithms(_ value: Double) async throws {
        let algorithms: [ConcurrencyLimitMiddleware.Configuration.Algorithm] = [
            .aimd(backoffRatio: value), .gradient(tolerance: value), .gradient(smoothing: value),
        ]
        for algorithm in algorithms {
            if value.isNaN {
                Self.expectRefused(
                    await Self.run(ConcurrencyLimitMiddleware(configuration: .init(algorithm: algorithm)), calls: 2), naming: "ConcurrencyLimitMiddleware")
            } else {
                _ = await Self.limitCase(.init(algorithm: algorithm))
            }
        }
        for timeout in CallerNumbers.durations {
            _ = await Self.limitCase(.init(algorithm: .aimd(timeout: timeout)))
        }
    }

    /// The waiting bound is checked and taken in one step: 40 calls at once against a limit of
    /// one slot held by a call, with at most two waiting, leave exactly two waiting and refuse
    /// the other 38 (before, every call told to wait joined the queue).
    @Test(.timeLimit(.minutes(2))) func theWaitingBoundIsTakenWhereItIsChecked() async throws {
        let release = TestGate()
        defer { release.open() }
        let transport = MockTransport { request, _ in
            if request.url.path == "/hold" { _ = release.wait(timeout: .seconds(300)) }
            return .status(.ok)
        }
        let limit = ConcurrencyLimitMiddleware(configuration: .init(initialLimit: 1, minLimit: 1, maxLimit: 1, whenLimited: .wait(maxWaiting: 2)))
        let client = Client(transport: transport, middlewares: [limit])
        let base = URL(string: "https://api.example.com/")!
        let holder = Task { try await client.send(HTTPRequest(url: base.appending(path: "hold"))) }
        try await Wait.until("the holder has the slot") { limit.status(of: base).inFlight == 1 }
        let outcomes = await withTaskGroup(of: Result<HTTPResponse, any Error>.self) { group in
            for _ in 0..<40 { group.addTask { await Result { try await client.send(HTTPRequest(url: base.appending(path: "x"))) } } }
            // Once every call has either been refused or queued, let the holder go.
            try? await Wait.until("two wait and 38 were refused") { limit.status(of: base).waiting == 2 }
            var outcomes: [Result<HTTPResponse, any Error>] = []
            var refusedSoFar = 0
            for await outcome in group {
                outcomes.append(outcome)
                if case .failure = outcome { refusedSoFar += 1 }
                if refusedSoFar == 38 { release.open() }
            }
            return outcomes
        }
        _ = try await holder.value
        let refused = outcomes.filter { if case .failure(let error) = $0 { (error as? SluiceError)?.code == .concurrencyLimited } else { false } }
        #expect(refused.count == 38)
        #expect(outcomes.count { $0.isSuccess } == 2)
    }

    /// A hedge with the defaults for a caller with little traffic: each of four slow calls gets
    /// its copy (the budget's floor), and the status counts no refusal; with no floor, the budget
    /// refuses them and the status says so.
    @Test func aLowTrafficCallerIsHedgedWithTheDefaults() async throws {
        for floor in [1.0, 0] {
            let copies = Locked([String: Int]())
            let transport = MockTransport { request, _ in
                let copy = copies.withLock { copies -> Int in
                    copies[request.url.path, default: 0] += 1
                    return copies[request.url.path, default: 0]
                }
                if copy == 1 { try await Task.sleep(for: .seconds(300)) }  // the first copy is slow; cancelled when the hedge wins
                return .status(.ok)
            }
            let hedger = HedgingMiddleware(configuration: .init(delay: .fixed(.milliseconds(20)), minimumPerSecond: floor))
            let client = Client(transport: transport, middlewares: [hedger])
            for call in 0..<4 {
                let request = HTTPRequest(url: URL(string: "https://api.example.com/\(call)")!)
                if floor > 0 {
                    #expect(try await client.send(request, timeout: .seconds(60)).hedges == 1)
                } else {
                    // The slow first copy never answers: the call ends once the budget has
                    // refused its hedge (waited for, not raced against a deadline that a loaded
                    // machine can pass first).
                    let slow = Task { try await client.send(request) }
                    try await Wait.until("the budget refused hedge \(call + 1)") { hedger.status.refused == call + 1 }
                    slow.cancel()
                    await #expect(throws: CancellationError.self) { try await slow.value }
                }
            }
            if floor == 0 { #expect(copies.withLock { $0.values.allSatisfy { $0 == 1 } }) }  // no copy went out
            #expect(hedger.status.hedges == (floor > 0 ? 4 : 0))
            #expect(hedger.status.refused == (floor > 0 ? 0 : 4))
            #expect("\(hedger.status)".contains(floor > 0 ? "4 hedged, 0 hedges refused" : "0 hedged, 4 hedges refused by the budget"))
        }
    }

    /// The deadline header writes any time left, the longest included, without trapping.
    @Test func theDeadlineHeaderWritesAnyTimeLeft() {
        for remaining in CallerNumbers.durations {
            let milliseconds = DeadlineHeaderMiddleware.value(remaining, .milliseconds)
            #expect(Int(milliseconds).map { $0 >= 0 } == true)
            let grpc = DeadlineHeaderMiddleware.value(remaining, .grpcTimeout)
            #expect(grpc.count <= 9 && (grpc.hasSuffix("m") || grpc.hasSuffix("S")))
        }
        #expect(DeadlineHeaderMiddleware.value(.seconds(1e16), .milliseconds) == String(Int.max))
    }

    // MARK: Rate limit

    /// A count of calls is held to 1...1,000,000,000, and the first call under it goes.
    @Test(.covers("RateLimit.init(requests:per:burst:) requests", "RateLimit.init(requests:per:burst:) burst"), arguments: CallerNumbers.ints)
    func rateLimitCounts(_ count: Int) async throws {
        let limit = RateLimit(requests: count, per: .seconds(1), burst: count)
        #expect((1...1_000_000_000).contains(limit.requests) && (1...1_000_000_000).contains(limit.burst))
        #expect(try await MemoryRateLimitStore().acquire("k", under: limit) == .allowed)
    }

    /// A period is held to 1 ms...100 years; the wait a store names is never negative nor longer
    /// than the period.
    @Test(.covers("RateLimit.init(requests:per:burst:) per"), arguments: CallerNumbers.durations)
    func rateLimitPeriods(_ period: Duration) async throws {
        let limit = RateLimit(requests: 10, per: period)
        #expect(limit.period >= .milliseconds(1) && limit.period <= .seconds(3_155_760_000))
        let store = MemoryRateLimitStore()
        for _ in 0..<10 { _ = try await store.acquire("k", under: limit) }
        if case .limited(let after) = try await store.acquire("k", under: limit) {
            #expect(after >= .zero && after <= limit.period)
        }
    }

    /// The keys kept are held to 1...10,000,000, and no more are kept.
    @Test(.covers("MemoryRateLimitStore.init(maxKeys:) maxKeys"), arguments: CallerNumbers.ints)
    func rateLimitKeys(_ maxKeys: Int) async throws {
        let store = MemoryRateLimitStore(maxKeys: maxKeys)
        #expect((1...10_000_000).contains(store.maxKeys))
        for key in 0..<5 { _ = try await store.acquire("\(key)", under: RateLimit(requests: 1, per: .seconds(60))) }
        #expect(store.count <= min(5, store.maxKeys))
    }

    /// A pause is held to 0...100 years, in the store and as the middleware's `maxPause`: a
    /// server's 30 s pause the key for at most `maxPause`, none at all for a `maxPause` of 0 or
    /// less.
    @Test(
        .covers("MemoryRateLimitStore.pause(_:for:under:) for", "RateLimitStore.pause(_:for:under:) for", "RateLimitMiddleware.Configuration.maxPause"),
        arguments: CallerNumbers.durations)
    func rateLimitPauses(_ duration: Duration) async throws {
        let limit = RateLimit(requests: 10, per: .seconds(1))
        let store = MemoryRateLimitStore()
        try await store.pause("k", for: duration, under: limit)
        let decision = try await store.acquire("k", under: limit)
        if duration <= .zero {
            #expect(decision == .allowed)
        } else if case .limited(let after) = decision {
            #expect(after > .zero && after <= .seconds(3_155_760_000) + limit.period)
        }
        let middleware = RateLimitMiddleware(configuration: .init(limit: limit, whenLimited: .failFast, maxPause: duration))
        let harness = MiddlewareHarness(middleware, replies: [.status(.tooManyRequests, headers: ["Retry-After": "30"]), .status(.ok)])
        _ = try await harness.send(HTTPRequest(url: Self.url))
        let second = await Result { try await harness.send(HTTPRequest(url: Self.url)) }
        if duration <= .zero {
            #expect((try? second.get())?.status == .ok)
        } else if duration >= .seconds(1) {
            #expect(throws: SluiceError.self) { try second.get() }  // a 1 ns pause may be over already
        }
    }

    /// A learned quota's lifetime is held to 1 s...1 day: whatever the caller passes, the quota the
    /// server stated holds at first, and is gone a day after it was last stated.
    @Test(.covers("RateLimitMiddleware.Configuration.learnedLimitLifetime"), arguments: CallerNumbers.durations)
    func rateLimitLearnedLifetimes(_ lifetime: Duration) async throws {
        let clock = SteppedClock()
        let configured = RateLimit(requests: 10, per: .seconds(1))
        let limiter = RateLimitMiddleware(
            configuration: .init(limit: configured, learnedLimitLifetime: lifetime), store: MemoryRateLimitStore(maxKeys: 10, now: { clock.now }),
            now: { clock.now })
        let harness = MiddlewareHarness(
            limiter, replies: [.response(HTTPResponse(status: .ok, headers: try HTTPFields(validating: [("RateLimit-Policy", #""p";q=1;w=2"#)])))])
        _ = try await harness.send(HTTPRequest(url: Self.url))
        #expect(limiter.limit(for: "https://api.example.com:443") == RateLimit(requests: 1, per: .seconds(2), burst: 1))
        clock.advance(.seconds(86_400))
        #expect(limiter.limit(for: "https://api.example.com:443") == configured)
    }

    /// A store's wait, however hostile, neither traps nor spins: past the deadline it is refused,
    /// zero or negative is a millisecond; a reservation past the deadline is refused too, one
    /// within it is slept; the memory store takes any longest wait, a negative one as zero.
    @Test(
        .covers(
            "RateLimitDecision.limited(retryAfter:)", "RateLimitDecision.reserved(after:)",
            "RateLimitStore.acquire(_:under:waitingAtMost:) waitingAtMost", "MemoryRateLimitStore.acquire(_:under:waitingAtMost:) waitingAtMost"),
        arguments: CallerNumbers.durations)
    func rateLimitDecisions(_ wait: Duration) async throws {
        final class Once: RateLimitStore {
            let first: RateLimitDecision
            let asked = Locked(0)
            init(_ first: RateLimitDecision) { self.first = first }
            func acquire(_ key: String, under limit: RateLimit, waitingAtMost maxWait: Duration) async throws -> RateLimitDecision {
                let count = asked.withLock { asked -> Int in
                    asked += 1
                    return asked
                }
                return count == 1 ? first : .allowed
            }
            func pause(_ key: String, for duration: Duration, under limit: RateLimit) async throws {}
        }
        for first in [RateLimitDecision.limited(retryAfter: wait), .reserved(after: wait)] {
            let store = Once(first)
            let middleware = RateLimitMiddleware(configuration: .init(limit: RateLimit(requests: 1, per: .seconds(1))), store: store)
            let harness = MiddlewareHarness(middleware, replies: [.status(.ok)])
            let outcome = await Result {
                try await harness.send(HTTPRequest(url: Self.url), context: RequestContext(deadline: .now + .seconds(1)))
            }
            let asked = store.asked.withLock { $0 }
            if wait >= .seconds(1) {
                #expect((try? outcome.get()) == nil && asked == 1, "\(first)")
            } else if case .limited = first {
                #expect((try? outcome.get())?.status == .ok && asked == 2)
            } else {
                #expect((try? outcome.get())?.status == .ok && asked == 1)
            }
        }
        let memory = MemoryRateLimitStore()
        let limit = RateLimit(requests: 1, per: .seconds(3600))
        #expect(try await memory.acquire("k", under: limit, waitingAtMost: wait) == .allowed)
        let second = try await memory.acquire("k", under: limit, waitingAtMost: wait)
        #expect(wait >= .seconds(3600) ? second == .reserved(after: second.wait) : second == .limited(retryAfter: second.wait), "\(second)")
    }

    /// Any number of places to wait is held to 0 or more: a call that cannot wait within its
    /// deadline is refused either way.
    @Test(.covers("RateLimitMiddleware.Configuration.WhenLimited.wait(maxWaiting:)"), arguments: CallerNumbers.ints)
    func rateLimitWaiting(_ maxWaiting: Int) async throws {
        let middleware = RateLimitMiddleware(
            configuration: .init(limit: RateLimit(requests: 1, per: .seconds(3600)), whenLimited: .wait(maxWaiting: maxWaiting)))
        let harness = MiddlewareHarness(middleware, replies: [.status(.ok), .status(.ok)])
        _ = try await harness.send(HTTPRequest(url: Self.url))
        await #expect(throws: SluiceError.self) {
            try await harness.send(HTTPRequest(url: Self.url), context: RequestContext(deadline: .now + .seconds(1)))
        }
    }
}
