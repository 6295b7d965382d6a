import AcmeSession
import Foundation
import Sluice
import SluiceTesting
import Synchronization
import Testing

/// The session store a test controls.
final class Sessions: Sendable {
    private let state = Mutex((current: "s1", renewals: 0))
    var current: String { state.withLock { $0.current } }
    var renewals: Int { state.withLock { $0.renewals } }

    func renew() async throws -> String {
        try await Task.sleep(for: .milliseconds(20))
        return state.withLock { state in
            state.renewals += 1
            state.current = "s\(state.renewals + 1)"
            return state.current
        }
    }

    var middleware: AcmeSessionMiddleware {
        AcmeSessionMiddleware(configuration: .init(current: { self.current }, renew: { try await self.renew() }))
    }
}

@Suite struct AcmeSessionTests {
    @Test func everyRequestCarriesTheSession() async throws {
        let sessions = Sessions()
        let harness = MiddlewareHarness(sessions.middleware, replies: [.status(.ok)])
        let response = try await harness.send(HTTPRequest(url: URL(string: "https://api.acme.test/me")!))
        #expect(response.status == .ok)
        #expect(harness.forwarded.map { $0.headers["X-Acme-Session"] } == ["s1"])
    }

    @Test func anExpiredSessionIsRenewedOnceAndTheRequestSentAgain() async throws {
        let sessions = Sessions()
        let harness = MiddlewareHarness(sessions.middleware, replies: [.status(419), .status(.ok)])
        let response = try await harness.send(HTTPRequest(url: URL(string: "https://api.acme.test/me")!))
        #expect(response.status == .ok)
        #expect(harness.forwarded.map { $0.headers["X-Acme-Session"] } == ["s1", "s2"])
        #expect(sessions.renewals == 1)
    }

    @Test func tenCallsThatExpireTogetherShareOneRenewal() async throws {
        let sessions = Sessions()
        let transport = MockTransport { request, _ in
            request.headers["X-Acme-Session"] == "s1" ? .status(419) : .status(.ok)
        }
        let client = Client(transport: transport, middlewares: [sessions.middleware])
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<10 {
                group.addTask { try await client.send(HTTPRequest(url: URL(string: "https://api.acme.test/\(index)")!)).status.code }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 10))
        #expect(sessions.renewals == 1)
    }

    @Test func theBuilderPutsItWithTheHeaderMiddleware() {
        #expect(AcmeSessionMiddleware.defaultPosition == .headers)
    }
}
