#if Metrics
    import Metrics
    import Sluice

    /// Reports a client's pool as gauges through swift-metrics, every ``Configuration/interval``:
    /// each origin's connections and the calls waiting for it (`Client.poolStatistics()`): for a
    /// connection, in the client's queue, or held by a rate or concurrency limit.
    ///
    /// | metric | type | dimensions |
    /// |---|---|---|
    /// | `sluice_http_client_connections` | gauge | `state` (`open`, `busy`, `idle`), `origin` |
    /// | `sluice_http_client_waiting_calls` | gauge | `for` (`connection`: started, no connection yet; `queue`: in the client's queue; `limit`: held by a rate or concurrency limit), `origin` |
    ///
    /// An origin that had figures and has none now (its connections closed) is reported at 0
    /// once, then left alone. The `origin` dimension is bounded: at most
    /// ``Configuration/maxOrigins`` values (the busiest), the rest summed under `other`, since
    /// every redirect target a server names opens a pool of its own; with
    /// ``Configuration/recordsOrigin`` off, one series sums every origin (its `origin` empty). With no backend bootstrapped (swift-metrics' no-op factory), nothing
    /// is counted: ``run()`` returns at once.
    ///
    /// ```swift
    /// import Sluice
    /// import SluiceMetrics
    ///
    /// let reporter = PoolMetricsReporter(client: client)
    /// let reporting = Task { try await reporter.run() }   // until cancelled
    /// // … at shutdown:
    /// reporting.cancel()
    /// ```
    public struct PoolMetricsReporter: Sendable {
        /// How often, under which names, and where.
        public struct Configuration: Sendable {
            /// How long between two reports: held to 10 ms...1 day.
            public var interval: Duration
            /// What every metric's label starts with.
            public var prefix: String
            /// The factory; `nil` takes `MetricsSystem.factory` when the reporter is made.
            public var factory: (any MetricsFactory)?
            /// Whether the gauges carry the `origin` dimension (leave it out when origins are many).
            public var recordsOrigin: Bool
            /// The most `origin` values reported (100), 1...10,000: the busiest origins by open
            /// connections and waiting calls; the others are summed under `other`.
            public var maxOrigins: Int

            /// Settings with each value given, or its default.
            public init(
                interval: Duration = .seconds(10), prefix: String = "sluice_", factory: (any MetricsFactory)? = nil, recordsOrigin: Bool = true,
                maxOrigins: Int = 100
            ) {
                self.interval = interval
                self.prefix = prefix
                self.factory = factory
                self.recordsOrigin = recordsOrigin
                self.maxOrigins = maxOrigins
            }

            /// Every 10 s, `sluice_` names, the bootstrapped factory, at most 100 origins.
            public static let `default` = Configuration()
        }

        /// The client whose pool is reported.
        public let client: Client
        /// How it reports.
        public let configuration: Configuration
        private let factory: any MetricsFactory
        private let reported = Locked<Set<String>>([])

        /// A reporter for `client`'s pool, through `configuration.factory` or the bootstrapped one.
        public init(client: Client, configuration: Configuration = .default) {
            self.client = client
            var configuration = configuration
            configuration.interval = min(max(configuration.interval, .milliseconds(10)), .seconds(86_400))
            configuration.maxOrigins = configuration.maxOrigins.clamped(to: 1...10_000)
            self.configuration = configuration
            self.factory = configuration.factory ?? MetricsSystem.factory
        }

        /// Reports now, then every ``Configuration/interval``, until the task is cancelled; at
        /// once, with nothing counted, when there is no backend.
        ///
        /// - Throws: `CancellationError` when the task is cancelled.
        public func run() async throws {
            guard !(factory is NOOPMetricsHandler) else { return }
            while true {
                await report()
                try await Task.sleep(clamping: configuration.interval)
            }
        }

        /// Reports the pool once, now.
        public func report() async {
            guard !(factory is NOOPMetricsHandler) else { return }
            let figures = bounded(await client.poolStatistics())
            let now = Set(figures.map(\.origin))
            // Origins that had figures and have none now go to 0 once; at most 1,024 are kept.
            let gone = reported.withLock { reported -> Set<String> in
                let gone = reported.subtracting(now)
                reported = now.count <= 1_024 ? now : Set(now.prefix(1_024))
                return gone
            }
            for origin in gone { record(PoolStatistics(origin: origin)) }
            for origin in figures { record(origin) }
        }

        /// `figures` with at most ``Configuration/maxOrigins`` origins, the busiest, and the rest
        /// summed under `other`; or all summed under `""` without ``Configuration/recordsOrigin``.
        package func bounded(_ figures: [PoolStatistics]) -> [PoolStatistics] {
            func sum(_ figures: some Sequence<PoolStatistics>, as origin: String) -> PoolStatistics {
                figures.reduce(into: PoolStatistics(origin: origin)) { $0.add($1) }
            }
            guard configuration.recordsOrigin else { return figures.isEmpty ? [] : [sum(figures, as: "")] }
            guard figures.count > configuration.maxOrigins else { return figures }
            let busiest = figures.sorted {
                let (left, right) = ($0.openConnections.addingClamped($0.waiting), $1.openConnections.addingClamped($1.waiting))
                return left != right ? left > right : $0.origin < $1.origin
            }
            let kept = busiest.prefix(configuration.maxOrigins - 1)
            return kept.sorted { $0.origin < $1.origin } + [sum(busiest.dropFirst(kept.count), as: "other")]
        }

        private func record(_ figures: PoolStatistics) {
            let connections = configuration.prefix + "http_client_connections"
            let waiting = configuration.prefix + "http_client_waiting_calls"
            let origin = ("origin", figures.origin)
            Gauge(label: connections, dimensions: [("state", "open"), origin], factory: factory).record(figures.openConnections)
            Gauge(label: connections, dimensions: [("state", "busy"), origin], factory: factory).record(figures.busyConnections)
            Gauge(label: connections, dimensions: [("state", "idle"), origin], factory: factory).record(figures.idleConnections)
            Gauge(label: waiting, dimensions: [("for", "connection"), origin], factory: factory).record(figures.waitingForConnection)
            Gauge(label: waiting, dimensions: [("for", "queue"), origin], factory: factory).record(figures.queuedCalls)
            Gauge(label: waiting, dimensions: [("for", "limit"), origin], factory: factory).record(figures.heldCalls)
        }
    }
#endif
