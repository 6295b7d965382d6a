import Foundation
import Sluice
import SluiceCurl
import SluiceTestSupport
import SluiceTesting
import Testing

@testable import SluiceResilience

/// A server's real concurrency: `capacity` calls served at once, the rest queued in arrival order.
final class CapacityGate: Sendable {
    private let condition = NSCondition()
    /// Read and written only while `condition` is locked.
    nonisolated(unsafe) private var capacity: Int
    nonisolated(unsafe) private var serving = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    func setCapacity(_ capacity: Int) {
        condition.lock()
        self.capacity = capacity
        condition.broadcast()
        condition.unlock()
    }

    /// Blocks until a slot is free, runs `work` in it.
    func serve(_ work: () -> Void) {
        condition.lock()
        while serving >= capacity { condition.wait() }
        serving += 1
        condition.unlock()
        work()
        condition.lock()
        serving -= 1
        condition.broadcast()
        condition.unlock()
    }
}

/// The adaptive limit through libcurl against a real server on 127.0.0.1.
@Suite("ConcurrencyLimitMiddleware", .timeLimit(.minutes(1)))
struct ConcurrencyLimitMiddlewareTests {
    /// A limit held at `limit` (its minimum and maximum), to test the queue and its errors.
    func fixed(_ limit: Int, whenLimited: ConcurrencyLimitMiddleware.Configuration.WhenLimited = .wait(maxWaiting: 100))
        -> ConcurrencyLimitMiddleware
    {
        ConcurrencyLimitMiddleware(configuration: .init(initialLimit: limit, minLimit: limit, maxLimit: limit, whenLimited: whenLimited))
    }

    /// Set to fail fast, a call above the limit is not sent: its error names the origin, the limit
    /// and the request (under the privacy policy).
    @Test func aCallAboveTheLimitFailsFastWhenSetTo() async throws {
        let held = TestGate()
        defer { held.open() }
        let server = try MockWebServer.holding(until: held)
        let limiter = fixed(2, whenLimited: .failFast)
        let client = Client(transport: CurlTransport(), middlewares: [limiter])
        let first = Task { try await client.send(HTTPRequest(url: server.url("/a"))) }
        let second = Task { try await client.send(HTTPRequest(url: server.url("/b"))) }
        try await Wait.until("two calls in flight") { limiter.status(of: server.baseURL).inFlight == 2 }
        await #expect {
            _ = try await client.send(HTTPRequest(url: server.url("/c?token=T")))
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .concurrencyLimited && error?.stage == .middleware(ConcurrencyLimitMiddleware.self)
                && error?.message == "http://127.0.0.1:\(server.port) has 2 calls in flight, its concurrency limit of 2; "
                    + "GET http://127.0.0.1:\(server.port)/c?token=<redacted> was not sent"
        }
        held.open()
        _ = try await (first.value, second.value)
        #expect(server.requests.map(\.target).sorted() == ["/a", "/b"])
        #expect(limiter.status(of: server.baseURL).description == "limit 2, 0 in flight, 0 waiting")
    }

    /// Waiting calls go highest priority first, then in arrival order; past `maxWaiting` a call
    /// fails at once.
    @Test func waitingCallsGoByPriorityAndTheQueueIsBounded() async throws {
        let server = try MockWebServer()
        let held = TestGate()
        defer { held.open() }
        server.setHandler { request in
            if request.target == "/first" { held.wait(timeout: .seconds(30)) }
            return .init(status: 200, body: "ok")
        }
        let limiter = fixed(1, whenLimited: .wait(maxWaiting: 3))
        let client = Client(transport: CurlTransport(), middlewares: [limiter])
        var tasks = [Task { try await client.send(HTTPRequest(url: server.url("/first"))) }]
        try await Wait.until("the first call in flight") { limiter.status(of: server.baseURL).inFlight == 1 }
        for (index, priority) in [RequestPriority.low, .normal, .high].enumerated() {
            var request = HTTPRequest(url: server.url("/\(priority)"))
            request.priority = priority
            tasks.append(Task { [request] in try await client.send(request) })
            try await Wait.until("\(index + 1) waiting") { limiter.status(of: server.baseURL).waiting == index + 1 }
        }
        await #expect {
            _ = try await client.send(HTTPRequest(url: server.url("/fifth")))
        } throws: { error in
            (error as? SluiceError)?.message
                == "http://127.0.0.1:\(server.port) has 1 calls in flight, its concurrency limit of 1, and 3 wait already, the most that may; "
                + "GET http://127.0.0.1:\(server.port)/fifth was not sent"
        }
        held.open()
        for task in tasks { _ = try await task.value }
        #expect(server.requests.map(\.target) == ["/first", "/high", "/normal", "/low"])
    }

    /// A call that reaches its deadline while it waits fails `.timedOut` and leaves the queue; a
    /// cancelled one leaves it with `CancellationError`. Neither takes a slot.
    @Test func aWaitEndsAtTheDeadlineOrOnCancellation() async throws {
        let held = TestGate()
        defer { held.open() }
        let server = try MockWebServer.holding(until: held)
        let limiter = fixed(1)
        let pipeline = Pipeline(middlewares: [limiter], transport: CurlTransport())
        let first = Task { try await pipeline.send(HTTPRequest(url: server.url("/first"))) }
        try await Wait.until("the first call in flight") { limiter.status(of: server.baseURL).inFlight == 1 }

        let request = HTTPRequest(url: server.url("/late"))
        await #expect {
            _ = try await pipeline.send(request, context: RequestContext(deadline: .now + .milliseconds(200)))
        } throws: { error in
            guard let error = error as? SluiceError, error.code == .timedOut else { return false }
            // How long it waited is 0.2 s, or more on a loaded machine.
            let message =
                #/GET http://127\.0\.0\.1:(\d+)/late waited \d+\.\d s for a slot under http://127\.0\.0\.1:(\d+)'s concurrency limit of 1 and reached its deadline; it was not sent/#
            guard let match = error.message.wholeMatch(of: message) else { return false }
            return match.1 == "\(server.port)" && match.2 == "\(server.port)"
        }
        #expect(limiter.status(of: server.baseURL).waiting == 0)

        let cancelled = Task { try await pipeline.send(HTTPRequest(url: server.url("/cancelled"))) }
        try await Wait.until("one waiting") { limiter.status(of: server.baseURL).waiting == 1 }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { _ = try await cancelled.value }
        #expect(limiter.status(of: server.baseURL).waiting == 0)

        held.open()
        _ = try await first.value
        #expect(server.requests.map(\.target) == ["/first"])
        #expect(limiter.status(of: server.baseURL).inFlight == 0)
    }

    /// Waits that end by deadline, by cancellation and by admission, racing each other 400 times
    /// over one slot: every slot taken is given back and every waiter leaves the queue (a call
    /// admitted just as it was cancelled or timed out keeps its slot, and gives it back).
    @Test func racingWaitsLoseNoSlot() async throws {
        let limiter = ConcurrencyLimiter(limit: AdaptiveLimit(rule: .aimd(backoffRatio: 0.9, timeout: nil), initial: 1, min: 1, max: 1))
        let outcomes = Locked((slots: 0, expired: 0, cancelled: 0))
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<400 {
                let task = Task {
                    do {
                        let slot: ConcurrencyLimiter.Slot
                        switch limiter.admit(maxWaiting: 1_000) {
                        case .admitted(let taken): slot = taken
                        case .mustWait: slot = try await limiter.wait(priority: .normal, until: .now + .microseconds(index % 7 * 300))
                        case .refused: return
                        }
                        outcomes.withLock { $0.slots += 1 }
                        await Task.yield()
                        limiter.release(slot, latency: .milliseconds(1), overloaded: false)
                    } catch is ConcurrencyLimiter.Expired {
                        outcomes.withLock { $0.expired += 1 }
                    } catch {
                        outcomes.withLock { $0.cancelled += 1 }
                    }
                }
                if index % 3 == 0 { group.addTask { task.cancel() } }
                group.addTask { _ = await task.result }
            }
        }
        let (slots, expired, cancelled) = outcomes.withLock { $0 }
        #expect(slots + expired + cancelled == 400)
        #expect(slots > 0)
        #expect(limiter.status.inFlight == 0)
        #expect(limiter.status.waiting == 0)
    }

    /// A streamed body holds its slot until it is read to the end, or until its reader drops it.
    @Test func aStreamedBodyHoldsItsSlotUntilItEnds() async throws {
        let server = try MockWebServer()
        server.setHandler { _ in .init(status: 200, body: String(repeating: "x", count: 100_000)) }
        let limiter = fixed(1)
        let client = Client(transport: CurlTransport(), middlewares: [limiter])
        var read = try await client.stream(HTTPRequest(url: server.url("/read")))
        #expect(limiter.status(of: server.baseURL).inFlight == 1)
        #expect(try await read.bodyStream!.collect().count == 100_000)
        #expect(limiter.status(of: server.baseURL).inFlight == 0)

        read = try await client.stream(HTTPRequest(url: server.url("/dropped")))
        #expect(limiter.status(of: server.baseURL).inFlight == 1)
        read.bodyStream = nil
        try await Wait.until("the dropped stream's slot is back") { limiter.status(of: server.baseURL).inFlight == 0 }
    }

    /// AIMD backs off on a 503, once per round: the four calls in flight together count once.
    @Test func aimdBacksOffOnOverloadOncePerRound() async throws {
        let held = TestGate()
        defer { held.open() }
        let server = try MockWebServer.holding(until: held, status: 503, body: "busy")
        let limiter = ConcurrencyLimitMiddleware(configuration: .init(algorithm: .aimd(backoffRatio: 0.5), initialLimit: 10))
        let client = Client(transport: CurlTransport(), middlewares: [limiter])
        let calls = (0..<4).map { _ in Task { try await client.send(HTTPRequest(url: server.url("/x"))) } }
        try await Wait.until("four in flight") { limiter.status(of: server.baseURL).inFlight == 4 }
        held.open()
        for call in calls { #expect(try await call.value.status.code == 503) }
        #expect(limiter.status(of: server.baseURL).limit == 5)
        _ = try await client.send(HTTPRequest(url: server.url("/x")))
        #expect(limiter.status(of: server.baseURL).limit == 2)
    }

    /// Each origin has its own limit.
    @Test func eachOriginHasItsOwnLimit() async throws {
        let busy = try MockWebServer()
        let other = try MockWebServer()
        busy.setHandler { _ in .init(status: 503, body: "busy") }
        other.setHandler { _ in .init(status: 200, body: "fine") }
        let limiter = ConcurrencyLimitMiddleware(configuration: .init(algorithm: .aimd(backoffRatio: 0.5), initialLimit: 10))
        let client = Client(transport: CurlTransport(), middlewares: [limiter])
        _ = try await client.send(HTTPRequest(url: busy.url("/x")))
        _ = try await client.send(HTTPRequest(url: other.url("/y")))
        #expect(limiter.status(of: busy.baseURL).limit == 5)
        #expect(limiter.status(of: other.baseURL).limit == 10)
    }
}

/// The adaptive limit against a real server with a real capacity, measured by latency: alone, in
/// `make test`'s serial run (see `TestPhase`), since the parallel run's stalls would be taken for
/// the server's.
@Suite(
    "ConcurrencyLimitMiddleware's convergence", .timeLimit(.minutes(1)),
    .enabled(if: TestPhase.isSerial, "measures latency: runs alone, in make test's serial run (SLUICE_TEST_PHASE=serial)"))
struct ConcurrencyLimitConvergenceTests {
    /// A server that serves 8 calls at once (100 ms each, long beside a loaded machine's scheduling
    /// delays) and queues the rest, called by 32 callers at once: the gradient settles near its 8,
    /// within the queue its tolerance allows (about 16). When the server's capacity drops to 2,
    /// latency climbs and the limit follows it down (about 6).
    @Test func theLimitSettlesNearTheServersConcurrencyAndBacksOffWhenLatencyClimbs() async throws {
        let server = try MockWebServer()
        let gate = CapacityGate(capacity: 8)
        server.setHandler { _ in
            gate.serve { Thread.sleep(forTimeInterval: 0.1) }
            return .init(status: 200, body: "ok")
        }
        // The default gradient, with its probe kept out of these 12 s (a probe just as the
        // capacity drops would measure a queue as the minimum): AdaptiveLimitTests covers probes.
        let limiter = ConcurrencyLimitMiddleware(configuration: .init(algorithm: .gradient(probeInterval: 100_000)))
        let client = Client(transport: CurlTransport(), middlewares: [limiter])
        let url = server.url("/work")
        let running = Locked(true)
        let failures = Locked(0)

        /// The limit read every 50 ms for `duration`; the median of those read in its second half.
        func settled(over duration: Duration) async throws -> Int {
            var readings: [(at: ContinuousClock.Instant, limit: Int)] = []
            let start = ContinuousClock.now
            while ContinuousClock.now < start + duration {
                try await Task.sleep(for: .milliseconds(50))
                readings.append((.now, limiter.status(of: url).limit))
            }
            let late = readings.filter { $0.at >= start + duration / 2 }.map(\.limit).sorted()
            try #require(!late.isEmpty, "no reading in the second half of \(duration)")
            return late[late.count / 2]
        }

        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<32 {
                group.addTask {
                    while running.withLock({ $0 }) {
                        do { _ = try await client.send(HTTPRequest(url: url)) } catch { failures.withLock { $0 += 1 } }
                    }
                }
            }
            let full = try await settled(over: .seconds(6))
            gate.setCapacity(2)
            let slower = try await settled(over: .seconds(6))
            running.withLock { $0 = false }
            try await group.waitForAll()
            #expect((8...24).contains(full), "settled at \(full) for a server serving 8 at once")
            #expect(slower < 8 && slower < full, "settled at \(slower) for 2 at once, from \(full)")
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(limiter.status(of: url).inFlight == 0)
    }
}

/// Issue 44, item 4: the calls a limit holds back, by origin, in the client's pool figures.
@Suite("Held calls in the pool figures", .timeLimit(.minutes(1)))
struct HeldCallsTests {
    @Test func aConcurrencyLimitsQueueIsCountedAsHeld() async throws {
        let released = Locked(false)
        let transport = MockTransport { _, _ in
            while !released.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
            return .status(.ok)
        }
        let limit = ConcurrencyLimitMiddleware(configuration: .init(initialLimit: 1, minLimit: 1, maxLimit: 1, whenLimited: .wait(maxWaiting: 10)))
        let client = Client(transport: transport, middlewares: [limit])
        let calls = (0..<3).map { _ in Task { try await client.send(HTTPRequest(url: URL(string: "https://api.example.com/x")!)) } }
        try await Wait.until("two calls wait for the one slot") { limit.heldCalls() == ["https://api.example.com:443": 2] }
        #expect(await client.poolStatistics() == [PoolStatistics(origin: "https://api.example.com:443", heldCalls: 2)])
        released.withLock { $0 = true }
        for call in calls { _ = try await call.value }
        #expect(limit.heldCalls().isEmpty)
        #expect(await client.poolStatistics().isEmpty)
    }

    @Test func aRateLimitsWaitingAndSleepingCallsAreCountedByTheirOwnOrigin() async throws {
        // One named quota for two hosts: one call a day, so the second sleeps until its place
        // (holding the turn) and the third waits in line behind it.
        let limit = RateLimitMiddleware(
            configuration: .init(limit: RateLimit(requests: 1, per: .seconds(86_400), burst: 1), key: .named("shared"), whenLimited: .wait(maxWaiting: 10)))
        let client = Client(transport: MockTransport { _, _ in .status(.ok) }, middlewares: [limit])
        _ = try await client.send(HTTPRequest(url: URL(string: "https://a.example/x")!))
        let second = Task { try await client.send(HTTPRequest(url: URL(string: "https://a.example/y")!)) }
        try await Wait.until("the second call sleeps until its place") { limit.heldCalls() == ["https://a.example:443": 1] }
        let third = Task { try await client.send(HTTPRequest(url: URL(string: "http://b.example/z")!)) }
        try await Wait.until("the third waits behind it") { limit.heldCalls() == ["https://a.example:443": 1, "http://b.example:80": 1] }
        #expect(
            await client.poolStatistics() == [
                PoolStatistics(origin: "http://b.example:80", heldCalls: 1), PoolStatistics(origin: "https://a.example:443", heldCalls: 1),
            ])
        second.cancel()
        third.cancel()
        _ = await (second.result, third.result)
        #expect(limit.heldCalls().isEmpty)
    }
}
