import Foundation
import Sluice
import SluiceCurl
import SluiceTestSupport
import SluiceTesting
import Testing

/// Issue 44, item 4: the pool's figures by origin, counted while a server holds the calls.
@Suite(.timeLimit(.minutes(2))) struct CurlTransportPoolTests {
    /// A server that holds every request until `gate` opens, counting them as they come.
    static func heldServer(_ gate: TestGate, arrived: Locked<Int>) throws -> MockWebServer {
        let server = try MockWebServer()
        server.setHandler { _ in
            arrived.withLock { $0 += 1 }
            gate.wait(timeout: .seconds(60))
            return .init(status: 200, body: "ok")
        }
        return server
    }

    @Test func busyIdleAndWaitingConnectionsAreCountedByOrigin() async throws {
        let gate = TestGate()
        defer { gate.open() }
        let arrived = Locked(0)
        let server = try Self.heldServer(gate, arrived: arrived)
        var configuration = CurlTransport.Configuration()
        configuration.maxConnectionsPerHost = 2
        let transport = CurlTransport(configuration: configuration)
        let origin = "http://127.0.0.1:\(server.port)"
        #expect(await transport.poolStatistics().isEmpty)

        let calls = (0..<3).map { index in
            Task { try await transport.send(HTTPRequest(url: server.url("/held/\(index)")), context: RequestContext()) }
        }
        try await Wait.until("two calls reached the server") { arrived.withLock { $0 } == 2 }
        // Two connections carry a call each; the third call waits under the per-host limit.
        var figures = await transport.poolStatistics()
        #expect(figures == [PoolStatistics(origin: origin, openConnections: 2, busyConnections: 2, waitingForConnection: 1)])
        #expect(figures.first?.idleConnections == 0 && figures.first?.waiting == 1)

        gate.open()
        for call in calls { #expect(try await call.value.text == "ok") }
        // All answered: the two connections stay open, idle, for the next call.
        figures = await transport.poolStatistics()
        #expect(figures == [PoolStatistics(origin: origin, openConnections: 2)])
        #expect(figures.first?.idleConnections == 2)
    }

    @Test func aClientAddsTheCallsQueuedInItToItsTransportsFigures() async throws {
        let gate = TestGate()
        defer { gate.open() }
        let arrived = Locked(0)
        let server = try Self.heldServer(gate, arrived: arrived)
        let client = Client(transport: CurlTransport(), configuration: .init(maxConcurrentRequests: 1))
        let calls = (0..<3).map { index in Task { try await client.send(HTTPRequest(url: server.url("/held/\(index)"))) } }
        try await Wait.until("one call reached the server") { arrived.withLock { $0 } == 1 }
        try await Wait.until("two calls queued in the client") { client.inFlight.filter { $0.state == .queued }.count == 2 }
        let figures = await client.poolStatistics()
        #expect(
            figures == [PoolStatistics(origin: "http://127.0.0.1:\(server.port)", openConnections: 1, busyConnections: 1, queuedCalls: 2)])
        gate.open()
        for call in calls { _ = try await call.value }
        #expect(await client.poolStatistics().map(\.waiting) == [0])
    }

    @Test func aTransportWithoutAPoolReportsNone() async {
        #expect(await MockTransport(replies: []).poolStatistics().isEmpty)
        let client = Client(transport: MockTransport(replies: []))
        #expect(await client.poolStatistics().isEmpty)
    }
}
