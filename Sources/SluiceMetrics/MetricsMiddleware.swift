#if Metrics
    import Foundation
    import Metrics
    import Sluice
    import Synchronization

    /// Records every call through swift-metrics: how many, how long, how many bytes, how many
    /// retries and hedges, and what the cache did, by method, status class, host and operation.
    ///
    /// | metric | type | dimensions |
    /// |---|---|---|
    /// | `sluice_http_client_requests_total` | counter | `method`, `status_class` (`2xx`…`5xx`, `failed`, `cancelled`), `host`, `operation`, `source` |
    /// | `sluice_http_client_request_duration` | timer | `method`, `status_class`, `host`, `operation` |
    /// | `sluice_http_client_<name>_total` | counter | `host`, `operation`: each count a module attaches and reports (a `ReportedAttachmentKey`): retry's `sluice_http_client_retries_total` counts attempts after the first, hedging's `sluice_http_client_hedges_total` hedged copies sent |
    /// | `sluice_http_client_cache_total` | counter | `result` (what the cache reports: `hit`, `revalidated`, `miss`), `host` |
    /// | `sluice_http_client_request_body_bytes_total` | counter | `host` (bodies of known length) |
    /// | `sluice_http_client_response_body_bytes_total` | counter | `host` (a streamed body as it is read) |
    /// | `sluice_http_client_phase_duration` | timer | `phase`, `host`: each phase of the transfer that answered, as the transport measured it (below) |
    ///
    /// The phases do not overlap: `queue` from the call's reaching this middleware to the start of
    /// the transfer that answered it (waiting in a rate or concurrency limit, for the event
    /// thread, the inner stages' own work, and, on a retried call, the earlier attempts and their
    /// back-off); `dns`; `connect`;
    /// `tls`; `first_byte`, from the connection's being ready to the first byte of the answer (the
    /// request going out and the server's work); `transfer`, from there to the end of the body the
    /// transport read (for a streamed body, to its head). A phase the transfer did not go through
    /// (`tls` on plain HTTP or on a reused connection) is not recorded; nor is any phase for an
    /// answer from the cache. The wait in the
    /// client's own queue (`Client.Configuration.maxConcurrentRequests`) comes before the chain.
    ///
    /// With no backend (swift-metrics' no-op factory, what an app has until it bootstraps one),
    /// nothing is measured: `Client.Builder` leaves the middleware out, and one put in a
    /// `Pipeline` by hand passes each call straight on.
    ///
    /// The duration runs to the end of the body for a streamed answer. `operation` is
    /// `HTTPRequest.operationName` (an OpenAPI `operationId`), empty when unset. A `miss`
    /// is an answer from the network after a cache looked for a stored one: with no cache in the
    /// chain (or a request the cache does not look up, a POST), nothing is counted. It sits at
    /// `MiddlewarePosition.metrics`, outside logging, retry and the cache, so it counts calls, not
    /// attempts.
    ///
    /// ```swift
    /// import Metrics
    /// import Sluice
    /// import SluiceCurl
    /// import SluiceMetrics
    ///
    /// // MetricsSystem.bootstrap(PrometheusMetricsFactory(…)) once, at start-up.
    /// var builder = Client.Builder(transport: CurlTransport())
    /// builder.add(MetricsMiddleware())
    /// ```
    public struct MetricsMiddleware: Middleware, EnvironmentConfigurable {
        /// Where metrics go and what their names start with.
        public struct Configuration: Sendable {
            /// What every metric's label starts with.
            public var prefix: String
            /// Whether metrics carry the `host` dimension (leave it out when hosts are many).
            public var recordsHost: Bool
            /// The factory; `nil` takes `MetricsSystem.factory` when the middleware is made.
            public var factory: (any MetricsFactory)?

            /// Settings with each value given, or its default.
            public init(prefix: String = "sluice_", recordsHost: Bool = true, factory: (any MetricsFactory)? = nil) {
                self.prefix = prefix
                self.recordsHost = recordsHost
                self.factory = factory
            }

            /// `sluice_` names, hosts recorded, the bootstrapped factory.
            public static let `default` = Configuration()
        }

        public static let defaultPosition = MiddlewarePosition.metrics

        /// How it records.
        public let configuration: Configuration
        private let factory: any MetricsFactory
        private let names: Names
        private let handles = HandleCache()
        /// Whether there is a backend to record to: not swift-metrics' no-op factory.
        private let isRecording: Bool

        /// A middleware recording through `configuration.factory`, or the bootstrapped one.
        public init(configuration: Configuration = .default) {
            self.configuration = configuration
            self.factory = configuration.factory ?? MetricsSystem.factory
            self.names = Names(prefix: configuration.prefix)
            self.isRecording = !(factory is NOOPMetricsHandler)
        }

        /// Itself, or `nil` (left out of the chain) when there is no backend to record to.
        public func configured(by environment: [String: String]) -> (any Middleware)? {
            isRecording ? self : nil
        }

        public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
            guard isRecording else { return try await next(request, context) }
            let start = ContinuousClock.now
            do {
                var response = try await next(request, context)
                if let metrics = response.metrics, response.source == .network { recordPhases(metrics, request, since: start) }
                guard let stream = response.bodyStream else {
                    record(request, response: response, bytes: Int64(response.body.count), since: start)
                    return response
                }
                let counted = Atomic<Int64>(0)
                let head = response
                response.bodyStream = stream.observingEnd(
                    chunk: { counted.add(Int64($0.count), ordering: .relaxed) },
                    finish: { [self] error in
                        // A body let go before its end keeps the answer's status class, as the log
                        // line keeps its status; past the deadline it is the deadline's .timedOut.
                        if let failure = context.streamFailure(error, for: request) {
                            recordFailure(request, error: failure, since: start)
                        } else {
                            record(request, response: head, bytes: counted.load(ordering: .relaxed), since: start)
                        }
                    })
                return response
            } catch {
                // Past the deadline, a cancellation is the deadline's .timedOut: "failed", as a
                // transport's timeout is, whichever stage noticed first.
                recordFailure(request, error: context.recorded(error, for: request), since: start)
                throw error
            }
        }

        private func record(_ request: HTTPRequest, response: HTTPResponse, bytes: Int64, since start: ContinuousClock.Instant) {
            let handles = handles(
                request, statusClass: Self.statusClasses[response.status.code / 100] ?? "\(response.status.code / 100)xx", source: response.source)
            record(request, handles, since: start)
            if !response.attachments.isEmpty { count(response.attachments, request) }
            if bytes > 0 { handles.responseBytes.increment(by: bytes) }
        }

        private func recordFailure(_ request: HTTPRequest, error: any Error, since start: ContinuousClock.Instant) {
            let cancelled = SluiceError.isCancellation(error)
            record(request, handles(request, statusClass: cancelled ? "cancelled" : "failed", source: nil), since: start)
        }

        /// What modules attached and report (``Sluice/ReportedAttachmentKey``), as
        /// `http_client_<name>_total`: a count by host and operation, increased by it (retry's
        /// `http_client_retries_total`, hedging's `http_client_hedges_total`); a label counted
        /// once by `result` and host (the cache's `http_client_cache_total`, `result` `hit`,
        /// `revalidated` or `miss`). Flags are not counted.
        private func count(_ attachments: Attachments, _ request: HTTPRequest) {
            let host = ("host", configuration.recordsHost ? (request.url.host ?? "") : "")
            for (name, value) in attachments.reported {
                switch value {
                case .count(let count) where count > 0:
                    handles.counter(names.prefix + "http_client_" + name + "_total", [host, ("operation", request.operationName ?? "")], factory)
                        .increment(by: Int64(count))
                case .label(let label):
                    handles.counter(names.prefix + "http_client_" + name + "_total", [("result", label), host], factory).increment()
                default: break
                }
            }
        }

        /// The phases of the transfer that answered, and the `queue` before it.
        private func recordPhases(_ metrics: TransferMetrics, _ request: HTTPRequest, since start: ContinuousClock.Instant) {
            let timers = handles.phaseTimers(host: configuration.recordsHost ? (request.url.host ?? "") : "") { host in
                Dictionary(
                    uniqueKeysWithValues: Self.phaseNames.map {
                        ($0, Timer(label: names.phases, dimensions: [("phase", $0), ("host", host)], factory: factory))
                    })
            }
            timers["queue"]?.record(duration: max(.zero, start.duration(to: .now) - metrics.total))
            for phase in metrics.phases { timers[phase.name]?.record(duration: phase.duration) }
        }

        private static let phaseNames = ["queue", "dns", "connect", "tls", "first_byte", "transfer"]

        /// What every call records: its count, its duration, the bytes it sent.
        private func record(_ request: HTTPRequest, _ handles: Handles, since start: ContinuousClock.Instant) {
            handles.requests.increment()
            handles.duration.record(duration: start.duration(to: .now))
            if let length = request.body.length, length > 0 { handles.requestBytes.increment(by: length) }
        }

        /// The metrics of a call with these dimensions, made through the factory the first time
        /// (a backend registers each once) and kept, for up to ``HandleCache/limit`` sets.
        private func handles(_ request: HTTPRequest, statusClass: String, source: ResponseSource?) -> Handles {
            let key = HandleCache.Key(
                method: request.method.rawValue, statusClass: statusClass, host: configuration.recordsHost ? (request.url.host ?? "") : "",
                operation: request.operationName ?? "", source: source?.description ?? "")
            return handles.handles(for: key) { makeHandles(key) }
        }

        private func makeHandles(_ key: HandleCache.Key) -> Handles {
            let host = ("host", key.host)
            let call = [("method", key.method), ("status_class", key.statusClass), host, ("operation", key.operation)]
            return Handles(
                requests: Counter(label: names.requests, dimensions: call + [("source", key.source)], factory: factory),
                duration: Timer(label: names.duration, dimensions: call, factory: factory),
                requestBytes: Counter(label: names.requestBytes, dimensions: [host], factory: factory),
                responseBytes: Counter(label: names.responseBytes, dimensions: [host], factory: factory))
        }

        private static let statusClasses = [1: "1xx", 2: "2xx", 3: "3xx", 4: "4xx", 5: "5xx"]

        /// The labels, made once.
        private struct Names: Sendable {
            let prefix, requests, duration, requestBytes, responseBytes, phases: String
            init(prefix: String) {
                self.prefix = prefix
                requests = prefix + "http_client_requests_total"
                duration = prefix + "http_client_request_duration"
                requestBytes = prefix + "http_client_request_body_bytes_total"
                responseBytes = prefix + "http_client_response_body_bytes_total"
                phases = prefix + "http_client_phase_duration"
            }
        }
    }
    /// The metrics one set of dimensions records to.
    private struct Handles: Sendable {
        let requests: Counter
        let duration: Timer
        let requestBytes: Counter
        let responseBytes: Counter
    }

    /// The metrics made so far, by their dimensions. Past `limit` sets (many hosts or operations),
    /// new ones are made for each call and not kept, so memory stays bounded.
    private final class HandleCache: Sendable {
        struct Key: Hashable {
            let method, statusClass, host, operation, source: String
        }

        static let limit = 1_024
        private let kept = Locked<[Key: Handles]>([:])

        func handles(for key: Key, make: () -> Handles) -> Handles {
            if let found = kept.withLock({ $0[key] }) { return found }
            let made = make()
            kept.withLock { if $0.count < Self.limit { $0[key] = $0[key] ?? made } }
            return made
        }

        /// The phase timers, by host, bounded as the handles are.
        private let phases = Locked<[String: [String: Timer]]>([:])

        func phaseTimers(host: String, make: (String) -> [String: Timer]) -> [String: Timer] {
            if let found = phases.withLock({ $0[host] }) { return found }
            let made = make(host)
            phases.withLock { if $0.count < Self.limit { $0[host] = $0[host] ?? made } }
            return made
        }

        /// The counters of what modules report (``Sluice/ReportedAttachmentKey``), by label and
        /// dimensions, bounded as the handles are.
        private let counters = Locked<[CounterKey: Counter]>([:])

        struct CounterKey: Hashable {
            let label: String
            let dimensions: [String]
        }

        /// The counter `label` with `dimensions`, made through `factory` the first time.
        func counter(_ label: String, _ dimensions: [(String, String)], _ factory: any MetricsFactory) -> Counter {
            let key = CounterKey(label: label, dimensions: dimensions.flatMap { [$0.0, $0.1] })
            if let found = counters.withLock({ $0[key] }) { return found }
            let made = Counter(label: label, dimensions: dimensions, factory: factory)
            counters.withLock { if $0.count < Self.limit { $0[key] = $0[key] ?? made } }
            return made
        }
    }
#else
    #warning("SluiceMetrics is empty: turn on the package trait \"Metrics\" where you depend on Sluice")
#endif
