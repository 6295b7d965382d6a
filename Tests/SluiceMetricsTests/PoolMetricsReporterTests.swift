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

        /// Issue 53, item 12: the `origin` label followed every redirect target (301 values from
        /// one server). At most `maxOrigins` values go out, the busiest, the rest summed under
        /// `other`; with `recordsOrigin` off, one series sums them all.
        @Test func theOriginLabelIsBoundedAndCanBeLeftOut() async throws {
            let many = (0..<301).map { PoolStatistics(origin: "https://hop\($0).example:443", openConnections: $0 == 7 ? 50 : 1, queuedCalls: 1) }
            let figures = Locked(many)
            let client = Client(transport: CountedTransport(figures: figures))
            let reporter = PoolMetricsReporter(client: client, configuration: .init(factory: metrics, maxOrigins: 10))
            let bounded = reporter.bounded(many)
            #expect(bounded.count == 10)
            #expect(bounded.first { $0.origin == "https://hop7.example:443" }?.openConnections == 50, "the busiest is kept")
            let other = try #require(bounded.first { $0.origin == "other" })
            #expect(other.openConnections == 292 && other.queuedCalls == 292, "the 292 others, summed")
            await reporter.report()
            let origins = Set(
                metrics.recorders.filter { $0.label == "sluice_http_client_connections" }.flatMap { $0.dimensions.filter { $0.0 == "origin" }.map(\.1) })
            #expect(origins.count == 10 && origins.contains("other"))

            let unlabelled = PoolMetricsReporter(client: client, configuration: .init(factory: metrics, recordsOrigin: false)).bounded(many)
            #expect(unlabelled.map(\.origin) == [""])
            #expect(unlabelled.first?.openConnections == 350 && unlabelled.first?.queuedCalls == 301)
            #expect(PoolMetricsReporter(client: client, configuration: .init(recordsOrigin: false)).bounded([]).isEmpty)
        }

        @Test(.covers("PoolMetricsReporter.Configuration.maxOrigins"), arguments: CallerNumbers.ints)
        func theOriginsKeptAreHeldToOneToTenThousand(most: Int) {
            let reporter = PoolMetricsReporter(client: Client(transport: MockTransport(replies: [])), configuration: .init(maxOrigins: most))
            #expect((1...10_000).contains(reporter.configuration.maxOrigins))
            let figures = (0..<3).map { PoolStatistics(origin: "o\($0)", openConnections: .max) }
            let bounded = reporter.bounded(figures)
            #expect(bounded.count == min(3, reporter.configuration.maxOrigins))
            #expect(bounded.allSatisfy { $0.openConnections == .max }, "sums held at Int.max")
        }

        @Test(.covers("PoolMetricsReporter.Configuration.interval"), arguments: CallerNumbers.durations)
        func theIntervalIsHeldToTenMillisecondsToADay(interval: Duration) {
            let reporter = PoolMetricsReporter(client: Client(transport: MockTransport(replies: [])), configuration: .init(interval: interval))
            #expect(reporter.configuration.interval >= .milliseconds(10) && reporter.configuration.interval <= .seconds(86_400))
        }
    }
#endif
