import Foundation
import Sluice
import SluiceCurl
import SluiceResilience
import SluiceRetry
import SluiceTestSupport
import SluiceTesting
import Testing

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let now = Locked(ContinuousClock.now)
    func read() -> ContinuousClock.Instant { now.withLock { $0 } }
    func advance(_ duration: Duration) { now.withLock { $0 += duration } }
}

/// The breaker through libcurl against real servers on 127.0.0.1: one host failing, one well.
@Suite("CircuitBreakerMiddleware", .timeLimit(.minutes(1)))
struct CircuitBreakerMiddlewareTests {
    let clock = ManualClock()

    func breaker(minimumCalls: Int = 4) -> CircuitBreakerMiddleware {
        CircuitBreakerMiddleware(
            configuration: .init(window: .calls(4), failureRateThreshold: 0.5, minimumCalls: minimumCalls, clock: { [clock] in clock.read() }))
    }

    @Test func aFailingHostOpensItsCircuitAndTheOtherHostIsUntouchedThenProbesCloseIt() async throws {
        let failing = try MockWebServer()
        let healthy = try MockWebServer()
        let down = Locked(true)
        failing.setHandler { _ in down.withLock { $0 } ? .init(status: 503, body: "down") : .init(status: 200, body: "back") }
        healthy.setHandler { _ in .init(status: 200, body: "fine") }
        let breaker = breaker()
        let changes = breaker.stateChanges()
        let client = Client(transport: CurlTransport(), middlewares: [breaker])

        // Four failures in a window of four: open. The healthy host answers all along.
        for _ in 0..<4 {
            #expect(try await client.send(HTTPRequest(url: failing.url("/x"))).status.code == 503)
            #expect(try await client.send(HTTPRequest(url: healthy.url("/y"))).status.code == 200)
        }
        #expect(breaker.state(of: failing.url("/")) == .open(until: clock.read() + .seconds(30)))
        #expect(breaker.state(of: healthy.url("/")) == .closed)

        // Open: fails at once, naming the origin and when it tries again; nothing is sent.
        clock.advance(.milliseconds(200))
        await #expect {
            _ = try await client.send(HTTPRequest(url: failing.url("/x?token=T")))
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .circuitOpen && error?.stage == .middleware(CircuitBreakerMiddleware.self)
                && error?.message == "the circuit for http://127.0.0.1:\(failing.port) is open after 4 of 4 calls failed; the next call goes "
                    + "through in 29.8 s; GET http://127.0.0.1:\(failing.port)/x?token=<redacted> was not sent"
        }
        #expect(failing.requests.count == 4)
        #expect(try await client.send(HTTPRequest(url: healthy.url("/y"))).status.code == 200)

        // The host recovers; after the wait two probes go through and close the circuit.
        down.withLock { $0 = false }
        clock.advance(.seconds(30))
        for _ in 0..<2 { #expect(try await client.send(HTTPRequest(url: failing.url("/x"))).text == "back") }
        #expect(breaker.state(of: failing.url("/")) == .closed)
        #expect(failing.requests.count == 6)

        var seen: [String] = []
        for await change in changes {
            seen.append("\(change.from) → \(change.to)")
            #expect(change.origin == "http://127.0.0.1:\(failing.port)")
            if seen.count == 3 { break }
        }
        #expect(seen == ["closed → open", "open → half-open", "half-open → closed"])
    }

    @Test func aFailedProbeOpensItAgain() async throws {
        let server = try MockWebServer()
        server.setHandler { _ in .init(status: 500, body: "still down") }
        let breaker = breaker(minimumCalls: 2)
        let client = Client(transport: CurlTransport(), middlewares: [breaker])
        for _ in 0..<2 { _ = try await client.send(HTTPRequest(url: server.url("/x"))) }
        clock.advance(.seconds(30))
        #expect(try await client.send(HTTPRequest(url: server.url("/x"))).status.code == 500)  // the probe
        #expect(breaker.state(of: server.url("/")) == .open(until: clock.read() + .seconds(30)))
        await #expect { _ = try await client.send(HTTPRequest(url: server.url("/x"))) } throws: {
            ($0 as? SluiceError)?.code == .circuitOpen
        }
        #expect(server.requests.count == 3)
    }

    /// Retry outside the breaker: the breaker counts each attempt, and once the circuit opens a
    /// retry is never sent to it (retry does not retry `.circuitOpen`).
    @Test func retryAndTheBreakerAgree() async throws {
        let server = try MockWebServer()
        server.setHandler { _ in .init(status: 503, body: "down") }
        var builder = Client.Builder(transport: CurlTransport())
        builder.add(RetryMiddleware(policy: DefaultRetryPolicy(configuration: .init(maximumAttempts: 3, baseDelay: .milliseconds(1)))))
        builder.add(breaker(minimumCalls: 3))
        let client = builder.build()
        // One call, three attempts, three failures: the circuit opens on the third.
        #expect(try await client.send(HTTPRequest(url: server.url("/x"))).status.code == 503)
        #expect(server.requests.count == 3)
        // The next call fails at once, and retry leaves it failed: nothing more is sent.
        await #expect { _ = try await client.send(HTTPRequest(url: server.url("/x"))) } throws: {
            ($0 as? SluiceError)?.code == .circuitOpen
        }
        #expect(server.requests.count == 3)
    }

    @Test func whatCountsAsAFailure() {
        let failure = CircuitBreakerMiddleware.defaultIsFailure
        #expect(failure(.success(HTTPResponse(status: HTTPStatus(code: 503)))))
        #expect(failure(.success(HTTPResponse(status: HTTPStatus(code: 429)))))
        #expect(!failure(.success(HTTPResponse(status: HTTPStatus(code: 404)))))
        #expect(failure(.failure(SluiceError(.cannotConnect, "refused"))))
        #expect(failure(.failure(SluiceError(.timedOut, "slow"))))
        #expect(!failure(.failure(SluiceError(.offline, "the machine, not the host"))))
        #expect(!failure(.failure(CancellationError())))
    }
}
