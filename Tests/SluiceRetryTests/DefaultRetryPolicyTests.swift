import Foundation
import Sluice
import SluiceCurl
import SluiceRetry
import SluiceTestSupport
import SluiceTesting
import Testing

final class Counter: Sendable {
    private let value = Locked(0)
    func add() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

/// Counts the attempts that pass it (placed inside the retry middleware).
struct CountingMiddleware: Middleware {
    let counter: Counter
    func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        counter.add()
        return try await next(request, context)
    }
}

func fast(_ attempts: Int = 3) -> DefaultRetryPolicy {
    DefaultRetryPolicy(configuration: .init(maximumAttempts: attempts, baseDelay: .milliseconds(1), maximumDelay: .milliseconds(2)))
}

@Suite("DefaultRetryPolicy")
struct RetryPolicyTests {
    let url = URL(string: "https://api.example.com/x")!

    @Test func fullJitterStaysWithinItsBounds() {
        let low = DefaultRetryPolicy(configuration: .init(random: { 0 }))
        let high = DefaultRetryPolicy(configuration: .init(random: { 0.999_999 }))
        for attempt in 1...12 {
            let ceiling = min(Duration.seconds(30), .milliseconds(200) * (1 << (attempt - 1)))
            #expect(low.backoff(attempt: attempt) == .zero)
            #expect(high.backoff(attempt: attempt) < ceiling && high.backoff(attempt: attempt) > ceiling * 0.99)
        }
        let real = DefaultRetryPolicy()
        for _ in 0..<1_000 { #expect(real.backoff(attempt: 2) < .milliseconds(400)) }
    }

    @Test func retryAfterInBothFormsCappedAndInvalidValuesIgnored() {
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        let policy = DefaultRetryPolicy(configuration: .init(clock: { now }))
        #expect(policy.retryAfter("1") == .seconds(1))
        #expect(policy.retryAfter(" 120 ") == .seconds(120))
        #expect(policy.retryAfter("99999999") == .seconds(300))
        #expect(policy.retryAfter("99999999999999999999") == .seconds(300))
        #expect(policy.retryAfter("Sun, 06 Nov 1994 08:49:47 GMT") == .seconds(10))
        #expect(policy.retryAfter("Sunday, 06-Nov-94 08:49:47 GMT") == .seconds(10))
        #expect(policy.retryAfter("Sun Nov  6 08:49:47 1994") == .seconds(10))
        #expect(policy.retryAfter("Sun, 06 Nov 1994 08:00:00 GMT") == .zero)
        // The furthest date there is: capped, never an overflow (the http-date fuzz target's crash).
        #expect(policy.retryAfter("Fri, 31 Dec 9999 23:59:59 GMT") == .seconds(300))
        for invalid in ["-1", "+1", "1.0", "١", "１", "", "soon", "1 2"] {
            #expect(policy.retryAfter(invalid) == nil, "\(invalid)")
        }
    }

    @Test func whatIsRetried() throws {
        let policy = DefaultRetryPolicy(configuration: .init(random: { 0.5 }))
        func decide(_ request: HTTPRequest, _ outcome: Result<HTTPResponse, any Error>, attempt: Int = 1) -> RetryDecision {
            policy.decision(for: request, attempt: attempt, outcome: outcome)
        }
        let get = HTTPRequest(url: url)
        for status in [408, 425, 429, 500, 502, 503, 504] {
            #expect(decide(get, .success(HTTPResponse(status: HTTPStatus(code: status)))) == .retry(after: .milliseconds(100)))
        }
        for status in [200, 400, 401, 404, 501] { #expect(decide(get, .success(HTTPResponse(status: HTTPStatus(code: status)))) == .stop) }
        for code in [SluiceError.Code.cannotConnect, .connectionLost, .timedOut] {
            #expect(decide(get, .failure(SluiceError(code, "x"))) == .retry(after: .milliseconds(100)))
        }
        for code in [SluiceError.Code.tlsFailure, .dnsFailure, .invalidURL, .offline] { #expect(decide(get, .failure(SluiceError(code, "x"))) == .stop) }
        #expect(decide(get, .failure(CancellationError())) == .stop)
        #expect(decide(get, .success(HTTPResponse(status: 503)), attempt: 3) == .stop)
        // Methods and bodies.
        let post = HTTPRequest(method: .post, url: url, body: .bytes(Data("x".utf8)))
        #expect(decide(post, .success(HTTPResponse(status: 503))) == .stop)
        var keyed = post
        try keyed.headers.set(name: "Idempotency-Key", value: "k-1")
        #expect(decide(keyed, .success(HTTPResponse(status: 503))) != .stop)
        var optedIn = post
        optedIn.retriesNonIdempotent = true
        #expect(decide(optedIn, .success(HTTPResponse(status: 503))) != .stop)
        let oneShot = HTTPRequest(method: .put, url: url, body: .stream(.oneShot(length: 1, AsyncThrowingStream { $0.finish() })))
        #expect(decide(oneShot, .success(HTTPResponse(status: 503))) == .stop)
    }
}
