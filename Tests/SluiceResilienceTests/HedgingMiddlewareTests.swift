import Foundation
import Sluice
import SluiceCurl
import SluiceTestSupport
import SluiceTesting
import Testing

@testable import SluiceResilience

/// Hedging through libcurl against a real server on 127.0.0.1, and its rules alone.
@Suite("HedgingMiddleware", .timeLimit(.minutes(1)))
struct HedgingMiddlewareTests {
    func hedger(_ delay: HedgingMiddleware.Configuration.Delay, ratio: Double = 1) -> HedgingMiddleware {
        HedgingMiddleware(configuration: .init(delay: delay, maxExtraRatio: ratio))
    }

    /// The first copy is held by the server (for 300 s unless the test lets it go); the copy sent
    /// after the delay answers, wins, and the held transfer is cancelled: its connection closed.
    @Test func theFirstAnswerWinsAndTheOtherTransferIsCancelled() async throws {
        let server = try MockWebServer()
        let held = TestGate()
        defer { held.open() }
        let seen = Locked(0)
        server.setHandler { _ in
            let copy = seen.withLock { count -> Int in
                count += 1
                return count
            }
            if copy == 1 { _ = held.wait(timeout: .seconds(300)) }
            return .init(status: 200, body: "copy \(copy)")
        }
        let client = Client(transport: CurlTransport(), middlewares: [hedger(.fixed(.milliseconds(50)))])
        let response = try await client.send(HTTPRequest(url: server.url("/x")))
        #expect(response.text == "copy 2")
        #expect(server.requests.map(\.target) == ["/x", "/x"])
        #expect(server.requests.map(\.connection) == [0, 1])  // two transfers, two connections
        // The server lets the first copy go: its client had already closed the connection.
        held.open()
        try await Wait.until("the losing copy's connection was closed") { server.connectionsClosedByClient >= 1 }
    }

    /// A copy that fails before its hedge is sent ends the call at once: a hedge is for a slow
    /// answer, not a retry (with a 300 s delay, waiting for it would outlast the suite's limit).
    @Test func aFirstCopyThatFailsEndsTheCallWithoutAHedge() async throws {
        let dead = Loopback.RefusedPort()
        let client = Client(transport: CurlTransport(), middlewares: [hedger(.fixed(.seconds(300)))])
        await #expect { _ = try await client.send(HTTPRequest(url: URL(string: "http://127.0.0.1:\(dead.port)/x")!)) } throws: {
            ($0 as? SluiceError)?.code == .cannotConnect
        }
    }

    /// A POST is never sent twice: the server answers after 300 ms, six times the delay.
    @Test func aPostIsNotHedged() async throws {
        let server = try MockWebServer()
        server.setHandler { _ in MockWebServer.Response(status: 201, body: "made").with(headersDelay: .milliseconds(300)) }
        let client = Client(transport: CurlTransport(), middlewares: [hedger(.fixed(.milliseconds(50)))])
        let response = try await client.send(HTTPRequest(method: .post, url: server.url("/orders"), body: .bytes(Data("{}".utf8))))
        #expect(response.status.code == 201)
        #expect(server.requests.count == 1)
    }

    @Test func whatMayBeSentTwice() throws {
        let url = try #require(URL(string: "https://api.example.com/x"))
        for method in [HTTPMethod.get, .head, .options, .put, .delete] { #expect(HedgingMiddleware.mayHedge(HTTPRequest(method: method, url: url))) }
        #expect(!HedgingMiddleware.mayHedge(HTTPRequest(method: .post, url: url)))
        #expect(!HedgingMiddleware.mayHedge(HTTPRequest(method: .patch, url: url)))
        #expect(HedgingMiddleware.mayHedge(HTTPRequest(method: .post, url: url, headers: ["Idempotency-Key": "k-1"])))
        var streamed = HTTPRequest(url: url)
        streamed.streamsResponseBody = true
        #expect(!HedgingMiddleware.mayHedge(streamed))
        var toFile = HTTPRequest(url: url)
        toFile.responseBodyFile = URL(fileURLWithPath: "/tmp/x")
        #expect(!HedgingMiddleware.mayHedge(toFile))
        let oneShot = HTTPBody.Stream.oneShot(length: 1, AsyncThrowingStream { $0.finish() })
        #expect(!HedgingMiddleware.mayHedge(HTTPRequest(method: .put, url: url, body: .stream(oneShot))))
    }

    @Test func theBudgetAllowsHedgesUpToItsShareOfTheCallsInItsWindow() {
        let start = ContinuousClock.now
        let state = HedgingState(start: start)
        for _ in 0..<9 { state.countCall(now: start) }
        #expect(!state.mayHedge(ratio: 0.1, now: start))  // 1 of 9 would be over 10%
        state.countCall(now: start)
        #expect(state.mayHedge(ratio: 0.1, now: start))  // 1 of 10
        #expect(!state.mayHedge(ratio: 0.1, now: start))  // 2 of 10
        #expect(state.counts(now: start) == (10, 1))
        // The window slides: just after it ends, its calls still count, so a hedge stays possible
        // (a window that restarted from nothing would refuse every hedge for its first 10 calls).
        let next = start + .seconds(10)
        #expect(state.counts(now: next) == (10, 1))
        for _ in 0..<10 { state.countCall(now: next) }
        #expect(state.mayHedge(ratio: 0.1, now: next))  // 2 of 20
        // 4 s into the new window, 60% of the last one counts: 10 + 6 calls, 1 + 0.6 hedges.
        #expect(state.counts(now: next + .seconds(4)) == (16, 2))
        // Two windows on, nothing.
        #expect(state.counts(now: next + .seconds(20)) == (0, 0))
    }

    @Test func thePercentileDelayIsTheOriginsAndTheFallbackUntilTwentyAreKnown() {
        let hedger = hedger(.percentile(0.95, fallback: .milliseconds(100)))
        let state = HedgingState()
        #expect(state.percentile(0.95, of: "http://a:80") == nil)
        for milliseconds in 1...100 { state.record(origin: "http://a:80", latency: .milliseconds(milliseconds)) }
        #expect(state.percentile(0.95, of: "http://a:80") == .milliseconds(95))
        #expect(state.percentile(0.5, of: "http://a:80") == .milliseconds(50))
        #expect(hedger.delay(for: "http://b:80") == .milliseconds(100))
        // Computed again after ten new latencies, not on each call.
        for _ in 1...9 { state.record(origin: "http://a:80", latency: .seconds(1)) }
        #expect(state.percentile(0.5, of: "http://a:80") == .milliseconds(50))
        state.record(origin: "http://a:80", latency: .seconds(1))
        #expect(state.percentile(0.5, of: "http://a:80") == .milliseconds(55))  // the 55th of 110
    }
}

/// Hedging against a slow tail through libcurl: alone, in `make test`'s serial run (see
/// `TestPhase`). Hedging decides by latency (the delay), and on a loaded machine a stalled call is
/// hedged too, which spends the budget a held call needs.
@Suite(
    "HedgingMiddleware against a slow tail", .timeLimit(.minutes(1)),
    .enabled(if: TestPhase.isSerial, "hedging decides by latency: runs alone, in make test's serial run (SLUICE_TEST_PHASE=serial)"))
struct HedgingSlowTailTests {
    /// A slow tail: the first copy of every 20th call is held by the server until the test ends
    /// (a tail far beyond any bound). With hedging each of those calls ends anyway, on its copy,
    /// and the extra load stays within the 10% budget: those five copies (5%), and on a loaded
    /// machine perhaps a call that stalled past the 1 s delay.
    @Test func aSlowTailIsCutWithinTheBudget() async throws {
        let server = try MockWebServer()
        let held = TestGate()
        defer { held.open() }
        let seen = Locked(Set<String>())
        server.setHandler { request in
            let first = seen.withLock { $0.insert(request.target).inserted }
            let call = Int(request.target.dropFirst("/call/".count)) ?? 0
            if first, call % 20 == 19 { held.wait(timeout: .seconds(300)) }
            return .init(status: 200, body: "ok")
        }
        let client = Client(
            transport: CurlTransport(),
            middlewares: [HedgingMiddleware(configuration: .init(delay: .fixed(.seconds(1)), maxExtraRatio: 0.1, minimumPerSecond: 0))])
        var hedged: [Int] = []
        let start = ContinuousClock.now
        for call in 0..<100 {
            let response = try await client.send(HTTPRequest(url: server.url("/call/\(call)")))
            #expect(response.text == "ok")
            if response.hedges > 0 { hedged.append(call) }
        }
        #expect(start.duration(to: .now) < TestTiming.scaled(.seconds(60)))
        #expect(Set([19, 39, 59, 79, 99]).isSubset(of: hedged))
        #expect(server.requests.count == 100 + hedged.count)
        #expect(hedged.count <= 11)  // 10% of the calls, give or take where the windows fall
    }
}
