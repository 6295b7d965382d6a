import Foundation
import Sluice
import SluiceCurl
import SluiceRetry
import SluiceTestSupport
import SluiceTesting
import Testing

@Suite("RetryMiddleware against MockWebServer")
struct RetryMiddlewareTests {
    let server: MockWebServer
    init() throws { server = try MockWebServer() }

    func pipeline(_ policy: any RetryPolicy = DefaultRetryPolicy(), budget: RetryBudget = RetryBudget()) -> Pipeline {
        Pipeline(middlewares: [RetryMiddleware(policy: policy, budget: budget)], transport: CurlTransport())
    }

    @Test func a503WithRetryAfterSecondsIsHonoured() async throws {
        server.enqueue(.init(status: 503, headers: [("Retry-After", "1")], body: "busy"), .init(status: 200, body: "ok"))
        let start = ContinuousClock.now
        let response = try await pipeline().send(HTTPRequest(url: server.url("/a")))
        #expect(response.text == "ok")
        #expect(start.duration(to: .now) >= .milliseconds(950))
        #expect(server.requests.count == 2)
    }

    @Test func a503WithRetryAfterAsAnHTTPDateIsHonoured() async throws {
        let when = HTTPDate.format(Date().addingTimeInterval(2))
        server.enqueue(.init(status: 503, headers: [("Retry-After", when)], body: "busy"), .init(status: 200, body: "ok"))
        let start = ContinuousClock.now
        let response = try await pipeline().send(HTTPRequest(url: server.url("/a")))
        #expect(response.text == "ok")
        #expect(start.duration(to: .now) >= .milliseconds(900))
    }

    @Test func aStreamedCallIsRetriedBeforeItsHeadAndNeverAfterTheFirstByte() async throws {
        let pulls = Locked(0)
        let transport = MockTransport(replies: [
            .status(503),
            .response(
                {
                    var response = HTTPResponse(status: .ok)
                    response.bodyStream = ResponseBodyStream(pull: {
                        let count = pulls.withLock { value -> Int in
                            value += 1
                            return value
                        }
                        if count == 2 { throw SluiceError(.connectionLost, "dropped mid-body") }
                        return Data("first".utf8)
                    })
                    return response
                }()),
        ])
        var request = HTTPRequest(url: URL(string: "https://api.example.com/feed")!)
        request.streamsResponseBody = true
        let response = try await Pipeline(middlewares: [RetryMiddleware(policy: fast())], transport: transport).send(request)
        #expect(response.status == .ok)
        #expect(transport.requests.count == 2)  // the 503 before the head was retried
        var iterator = response.bodyStream!.makeAsyncIterator()
        #expect(try await iterator.next() == Data("first".utf8))
        await #expect {
            _ = try await iterator.next()
        } throws: { ($0 as? SluiceError)?.code == .connectionLost }
        #expect(transport.requests.count == 2)  // the failure after the first byte is the reader's
    }

    @Test func a429IsRetriedAndAttemptsAreCountedInTheContext() async throws {
        let transport = MockTransport(replies: [.status(429), .status(429), .status(.ok, body: "ok")])
        let response = try await Pipeline(middlewares: [RetryMiddleware(policy: fast())], transport: transport)
            .send(HTTPRequest(url: server.url("/a")))
        #expect(response.text == "ok")
        #expect(transport.requests.map(\.context.attempt) == [1, 2, 3])
        server.enqueue(.init(status: 429, body: "slow down"), .init(status: 200, body: "ok"))
        #expect(try await pipeline(fast()).send(HTTPRequest(url: server.url("/b"))).text == "ok")
        #expect(server.requests.count == 2)
    }

    @Test func aPOSTIsNotRetriedAndAFileBodyIs() async throws {
        server.enqueue(.init(status: 503, body: "no"), .init(status: 503, body: "no"), .init(status: 200, body: "ok"))
        let post = try await pipeline(fast()).send(HTTPRequest(method: .post, url: server.url("/post"), body: .bytes(Data("x".utf8))))
        #expect(post.status.code == 503 && server.requests.count == 1)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-retry-\(UUID().uuidString)")
        try Data("file body".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let put = try await pipeline(fast()).send(HTTPRequest(method: .put, url: server.url("/put"), body: .file(file)))
        #expect(put.text == "ok")
        #expect(server.requests.count == 3)
        #expect(server.requests[1].body == Data("file body".utf8) && server.requests[2].body == Data("file body".utf8))
    }

    @Test func cancellationDuringTheBackoffSleepEndsItAtOnce() async throws {
        server.enqueue(.init(status: 503, headers: [("Retry-After", "300")], body: "busy"))
        let pipeline = pipeline()
        let url = server.url("/a")
        let task = Task { try await pipeline.send(HTTPRequest(url: url)) }
        try await Wait.until("the first attempt reached the server") { !server.requests.isEmpty }
        try await Task.sleep(for: .milliseconds(100))
        let cancelled = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        // The sleep is Task.sleep, which ends when the task is cancelled. The bound is far below the
        // 300 s Retry-After and leaves room for a machine loaded by the suites beside this one (a CI
        // run on two cores took 3.6 s here, with every suite starting at once).
        #expect(cancelled.duration(to: .now) < TestTiming.scaled(.seconds(30)))
        #expect(server.requests.count == 1)
    }

    @Test func neverSleepsPastTheDeadline() async throws {
        // Retry-After asks for 600 s; the deadline is 120 s away: no retry, the 503 comes back now.
        // (A minute, not seconds: one request on a loaded or sanitized machine can take a few.)
        server.enqueue(.init(status: 503, headers: [("Retry-After", "600")], body: "busy"))
        let start = ContinuousClock.now
        let response = try await pipeline().send(HTTPRequest(url: server.url("/a")), context: RequestContext(deadline: .now + .seconds(120)))
        #expect(response.status.code == 503)
        // Far inside the deadline: the policy did not sleep toward it.
        #expect(start.duration(to: .now) < TestTiming.scaled(.seconds(20)))
        #expect(server.requests.count == 1)
    }

    @Test func theBudgetCapsRetriesAgainstADeadServer() async throws {
        // A port held and never listened on: every attempt is refused at once.
        let dead = Loopback.RefusedPort()
        let url = dead.url("/gone")
        let attempts = Counter()
        // One window for the whole run, however long a loaded machine takes over 1,000 calls (the
        // per-second floor scaled down with it, so the 20% ratio is what caps the retries).
        let budget = RetryBudget(configuration: .init(ratio: 0.2, minimumPerSecond: 0.1, window: .seconds(600)))
        let pipeline = Pipeline(
            middlewares: [RetryMiddleware(policy: fast(5), budget: budget), CountingMiddleware(counter: attempts)],
            transport: CurlTransport()
        )
        var failures = 0
        for _ in 0..<1_000 {
            do { _ = try await pipeline.send(HTTPRequest(url: url)) } catch { failures += 1 }
        }
        #expect(failures == 1_000)
        #expect(attempts.count <= 1_200, "\(attempts.count) attempts for 1,000 calls")
        #expect(attempts.count > 1_000, "some retries were made")
        #expect(budget.refusedRetries > 0)
        withExtendedLifetime(dead) {}
    }
}
