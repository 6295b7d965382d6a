import Foundation
import SluiceCurl
import SluiceTestSupport
import SluiceTesting
import Testing

@testable import Sluice

/// A per-call `timeout:` and `deadline:` on every verb and on `send`: the whole call's limit,
/// the client's queue included.
@Suite("Per-call timeouts and deadlines", .timeLimit(.minutes(1)))
struct ClientTimeoutTests {
    struct Page: Decodable { let path: String }

    @Test func aVerbsTimeoutEndsASlowCallWithTimedOut() async throws {
        let server = try CountingServer()
        defer { server.release() }
        let client = Client(transport: CurlTransport(), configuration: .init(baseURL: server.url("/")))
        let start = ContinuousClock.now
        let error = await #expect(throws: SluiceError.self) { _ = try await client.get("/slow", timeout: .milliseconds(300)) }
        #expect(error?.code == .timedOut)
        #expect(start.duration(to: .now) < TestTiming.scaled(.seconds(30)), "well before the 60 s the server holds it")
        // The typed verbs and `send` take it too, and a deadline as an instant.
        let typed = await #expect(throws: SluiceError.self) {
            _ = try await client.get("/slow", as: Page.self, timeout: .milliseconds(200))
        }
        #expect(typed?.code == .timedOut)
        let byDeadline = await #expect(throws: SluiceError.self) {
            _ = try await client.send(try client.makeRequest(.get, "/slow"), deadline: .now + .milliseconds(200))
        }
        #expect(byDeadline?.code == .timedOut)
    }

    @Test func aCallQueuedBehindTheLimitTimesOutInTheQueue() async throws {
        let server = try CountingServer()
        defer { server.release() }
        let client = Client(transport: CurlTransport(), configuration: .init(maxConcurrentRequests: 1))
        let holder = Task { try await client.send(HTTPRequest(url: server.url("/slow"))) }
        try await Wait.until("the first call is at the server") { server.received == 1 }
        let request = HTTPRequest(url: server.url("/queued"))
        let error = await #expect(throws: SluiceError.self) { _ = try await client.send(request, timeout: .milliseconds(300)) }
        #expect(error?.code == .timedOut)
        #expect(error?.message == "GET \(server.url("/queued").absoluteString) did not finish within its deadline (0.3 s from the call's start)")
        #expect(error?.stage == .client)
        #expect(server.received == 1, "the queued call never reached the server")
        server.release()
        _ = try await holder.value
    }

    @Test func theEarliestLimitWinsAndAFastCallIsUntouched() async throws {
        let server = try CountingServer(hold: .milliseconds(1))
        let client = Client(transport: CurlTransport(), configuration: .init(timeout: .seconds(30)))
        let context = client.context(nil, timeout: .seconds(2), deadline: .now + .seconds(60))
        let remaining = try #require(context.remainingTime)
        #expect(remaining <= .seconds(2) && remaining > .seconds(1))
        let response = try await client.get(server.url("/fast").absoluteString, timeout: .seconds(120))
        #expect(response.status.code == 200)
    }
}
