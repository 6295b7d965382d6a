#if Metrics
    import Foundation
    import Metrics
    import MetricsTestKit
    import Sluice
    import SluiceMetrics
    import SluiceTestSupport
    import SluiceTesting
    import Testing

    /// A transport whose pool holds whatever the test says.
    struct CountedTransport: HTTPTransport {
        let figures: Locked<[PoolStatistics]>
        func send(_ request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse { HTTPResponse(status: .ok) }
        func poolStatistics() async -> [PoolStatistics] { figures.withLock { $0 } }
    }

    /// Issue 44, item 4: the pool as gauges.
    @Suite struct PoolMetricsReporterTests {
        let metrics = TestMetrics()

        func gauge(_ label: String, _ key: String, _ value: String, _ origin: String) throws -> Double? {
            try metrics.expectGauge("sluice_http_client_" + label, [(key, value), ("origin", origin)]).lastValue
        }

        @Test func eachOriginsConnectionsAndWaitingCallsAreGaugesAndAnOriginGoneGoesToZero() async throws {
            let figures = Locked([
                PoolStatistics(
                    origin: "https://a.example:443", openConnections: 5, busyConnections: 3, waitingForConnection: 2, queuedCalls: 4, heldCalls: 6)
            ])
            let reporter = PoolMetricsReporter(
                client: Client(transport: CountedTransport(figures: figures)), configuration: .init(factory: metrics))
            await reporter.report()
            let a = "https://a.example:443"
            #expect(try gauge("connections", "state", "open", a) == 5)
            #expect(try gauge("connections", "state", "busy", a) == 3)
            #expect(try gauge("connections", "state", "idle", a) == 2)
            #expect(try gauge("waiting_calls", "for", "connection", a) == 2)
            #expect(try gauge("waiting_calls", "for", "queue", a) == 4)
            #expect(try gauge("waiting_calls", "for", "limit", a) == 6)

            figures.withLock { $0 = [PoolStatistics(origin: "https://b.example:443", openConnections: 1)] }
            await reporter.report()
            #expect(try gauge("connections", "state", "open", a) == 0)
            #expect(try gauge("waiting_calls", "for", "queue", a) == 0)
            #expect(try gauge("connections", "state", "idle", "https://b.example:443") == 1)
        }

        @Test func runReportsUntilCancelledAndWithoutABackendCountsNothing() async throws {
            let figures = Locked([PoolStatistics(origin: "https://a.example:443", openConnections: 1)])
            let client = Client(transport: CountedTransport(figures: figures))
            let running = Task { try await PoolMetricsReporter(client: client, configuration: .init(interval: .milliseconds(10), factory: metrics)).run() }
            try await Wait.until("the first report") { metrics.recorders.contains { $0.label == "sluice_http_client_connections" } }
            figures.withLock { $0 = [PoolStatistics(origin: "https://a.example:443", openConnections: 7)] }
            try await Wait.until("a later report") { (try? gauge("connections", "state", "open", "https://a.example:443")) == 7 }
            running.cancel()
            await #expect(throws: CancellationError.self) { try await running.value }

            // No backend: run() returns at once, having asked nothing.
            try await PoolMetricsReporter(client: client, configuration: .init(factory: NOOPMetricsHandler.instance)).run()
        }

        @Test(.covers("PoolMetricsReporter.Configuration.interval"), arguments: CallerNumbers.durations)
        func theIntervalIsHeldToTenMillisecondsToADay(interval: Duration) {
            let reporter = PoolMetricsReporter(client: Client(transport: MockTransport(replies: [])), configuration: .init(interval: interval))
            #expect(reporter.configuration.interval >= .milliseconds(10) && reporter.configuration.interval <= .seconds(86_400))
        }
    }
#endif
