#if Metrics
    import Foundation
    import Metrics
    import Sluice
    import Synchronization

    /// Records every call through swift-metrics: how many, how long, how many bytes, how many
    /// retries, and what the cache did, by method, status class, host and operation.
    ///
    /// | metric | type | dimensions |
    /// |---|---|---|
    /// | `sluice_http_client_requests_total` | counter | `method`, `status_class` (`2xx`…`5xx`, `failed`, `cancelled`), `host`, `operation`, `source` |
    /// | `sluice_http_client_request_duration` | timer | `method`, `status_class`, `host`, `operation` |
    /// | `sluice_http_client_retries_total` | counter | `host`, `operation` (one per attempt after the first) |
    /// | `sluice_http_client_cache_total` | counter | `result` (`hit`, `revalidated`, `miss`, or another module's source), `host` |
    /// | `sluice_http_client_request_body_bytes_total` | counter | `host` (bodies of known length) |
    /// | `sluice_http_client_response_body_bytes_total` | counter | `host` (a streamed body as it is read) |
    ///
    /// The duration runs to the end of the body for a streamed answer. `operation` is
    /// `HTTPRequest.operationName` (an OpenAPI `operationId`), empty when unset. A `miss`
    /// is an answer from the network: with no cache in the chain, every call is one. It sits at
    /// `MiddlewarePosition.logging`, outside retry and the cache, so it counts calls, not
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
    public struct MetricsMiddleware: Middleware {
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

        public static let defaultPosition = MiddlewarePosition.logging

        /// How it records.
        public let configuration: Configuration
        private let factory: any MetricsFactory
        private let names: Names

        /// A middleware recording through `configuration.factory`, or the bootstrapped one.
        public init(configuration: Configuration = .default) {
            self.configuration = configuration
            self.factory = configuration.factory ?? MetricsSystem.factory
            self.names = Names(prefix: configuration.prefix)
        }

        public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
            let start = ContinuousClock.now
            let host = configuration.recordsHost ? (request.url.host ?? "") : ""
            if let length = request.body.length, length > 0 {
                Counter(label: names.requestBytes, dimensions: [("host", host)], factory: factory).increment(by: Int64(length))
            }
            do {
                var response = try await next(request, context)
                guard let stream = response.bodyStream else {
                    record(request, host: host, response: response, bytes: Int64(response.body.count), since: start)
                    return response
                }
                let counted = Atomic<Int64>(0)
                let head = response
                response.bodyStream = stream.map(
                    { chunk in
                        counted.add(Int64(chunk.count), ordering: .relaxed)
                        return chunk
                    },
                    end: { [self] error in
                        if let error {
                            recordFailure(request, host: host, error: error, since: start)
                        } else {
                            record(request, host: host, response: head, bytes: counted.load(ordering: .relaxed), since: start)
                        }
                        return nil
                    })
                return response
            } catch {
                recordFailure(request, host: host, error: error, since: start)
                throw error
            }
        }

        private func record(_ request: HTTPRequest, host: String, response: HTTPResponse, bytes: Int64, since start: ContinuousClock.Instant) {
            let operation = request.operationName ?? ""
            let statusClass = "\(response.status.code / 100)xx"
            count(request, host: host, statusClass: statusClass, source: response.source.description, since: start)
            if response.attempts > 1 {
                Counter(label: names.retries, dimensions: [("host", host), ("operation", operation)], factory: factory)
                    .increment(by: Int64(response.attempts - 1))
            }
            let source = response.source
            let result = source == .cache ? "hit" : source == .revalidated ? "revalidated" : source == .network ? "miss" : source.description
            Counter(label: names.cache, dimensions: [("result", result), ("host", host)], factory: factory).increment()
            if bytes > 0 { Counter(label: names.responseBytes, dimensions: [("host", host)], factory: factory).increment(by: bytes) }
        }

        private func recordFailure(_ request: HTTPRequest, host: String, error: any Error, since start: ContinuousClock.Instant) {
            let cancelled = error is CancellationError || (error as? SluiceError)?.code == .cancelled
            count(request, host: host, statusClass: cancelled ? "cancelled" : "failed", source: "", since: start)
        }

        private func count(_ request: HTTPRequest, host: String, statusClass: String, source: String, since start: ContinuousClock.Instant) {
            let elapsed = start.duration(to: .now)
            let method = request.method.rawValue, operation = request.operationName ?? ""
            Counter(
                label: names.requests,
                dimensions: [("method", method), ("status_class", statusClass), ("host", host), ("operation", operation), ("source", source)],
                factory: factory
            ).increment()
            Timer(
                label: names.duration, dimensions: [("method", method), ("status_class", statusClass), ("host", host), ("operation", operation)],
                factory: factory
            ).record(duration: elapsed)
        }

        /// The labels, made once.
        private struct Names: Sendable {
            let requests, duration, retries, cache, requestBytes, responseBytes: String
            init(prefix: String) {
                requests = prefix + "http_client_requests_total"
                duration = prefix + "http_client_request_duration"
                retries = prefix + "http_client_retries_total"
                cache = prefix + "http_client_cache_total"
                requestBytes = prefix + "http_client_request_body_bytes_total"
                responseBytes = prefix + "http_client_response_body_bytes_total"
            }
        }
    }
#else
    #warning("SluiceMetrics is empty: turn on the package trait \"Metrics\" where you depend on Sluice")
#endif
