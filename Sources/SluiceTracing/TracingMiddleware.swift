#if Tracing
    import Foundation
    import Sluice
    import Tracing

    /// A client span for each call, through swift-distributed-tracing: named for the operation
    /// (`HTTPRequest.operationName`) or the method, with the status, the error and the
    /// stage that failed. Its context is the current `ServiceContext` for the stages inside it, so
    /// ``AttemptTracingMiddleware`` makes each attempt and redirect hop a child span and sends the
    /// context to the server (`traceparent` and `tracestate`, with a W3C tracer). Add both with
    /// `Client.Builder.addTracing(_:)`.
    ///
    /// It records through the tracer its configuration names, or the one `InstrumentationSystem`
    /// was bootstrapped with. With neither, `Client.Builder` leaves it out of the chain, so a client
    /// without tracing pays nothing: bootstrap the tracer before you build the client. (Put in a
    /// `Pipeline` by hand, it passes each call through after one check.)
    ///
    /// Attributes (OpenTelemetry's HTTP names): `http.request.method`, `url.full` (redacted),
    /// `server.address`, `server.port`, `http.response.status_code`, `error.type` (the
    /// `SluiceError` code), `sluice.stage`, `sluice.source`, and `sluice.<name>` for what each
    /// module reports (a `ReportedAttachmentKey`): `sluice.cache` (`hit`, `revalidated`, `miss`),
    /// `sluice.retries` when retry re-sent the call, `sluice.hedges` when a hedged copy was sent.
    /// A status of 400 or more, or a thrown error, sets the span's status to error. A streamed
    /// answer's span ends when its body has been read.
    ///
    /// ```swift
    /// import Sluice
    /// import SluiceCurl
    /// import SluiceTracing
    ///
    /// // InstrumentationSystem.bootstrap(tracer) once, at start-up (swift-otel, or your own).
    /// var builder = Client.Builder(transport: CurlTransport())
    /// builder.addTracing()
    /// ```
    public struct TracingMiddleware: Middleware, EnvironmentConfigurable {
        /// Which tracer records, and what spans say.
        public struct Configuration: Sendable {
            /// The tracer; `nil` takes `InstrumentationSystem.tracer` at each call.
            public var tracer: (any Tracer)?
            /// What the `url.full` attribute hides, beside the request's own policy
            /// (`HTTPRequest.redaction`, the client's), which is always added to it.
            public var redaction: Redaction

            /// Settings with each value given, or its default.
            public init(tracer: (any Tracer)? = nil, redaction: Redaction = .default) {
                self.tracer = tracer
                self.redaction = redaction
            }

            /// The bootstrapped tracer, secrets hidden.
            public static let `default` = Configuration()
        }

        public static let defaultPosition = MiddlewarePosition.tracing

        /// How it traces.
        public let configuration: Configuration

        /// A middleware tracing through `configuration.tracer`, or the bootstrapped one.
        public init(configuration: Configuration = .default) {
            self.configuration = configuration
        }

        /// Itself, or `nil` (left out of the chain) when there is no tracer to record with.
        public func configured(by environment: [String: String]) -> (any Middleware)? {
            configuration.activeTracer == nil ? nil : self
        }

        public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
            guard let span = configuration.startSpan(for: request)?.span else { return try await next(request, context) }
            return try await SpanEnding.run(span, request, context) {
                try await ServiceContext.withValue(span.context) { try await next(request, context) }
            }
        }
    }

    /// A client span for each attempt and each redirect hop, a child of the call's span, whose
    /// context is injected into the request's fields through the tracer (`traceparent` and
    /// `tracestate` with a W3C tracer) so the server joins the trace. It sits inside retry and
    /// hedging (`MiddlewarePosition.attemptTracing`), so every attempt and every
    /// hedged copy passes it, and outside signing, so a signature covers the fields it adds.
    ///
    /// Attributes as ``TracingMiddleware`` sets them, with `http.request.resend_count` (attempts
    /// before this one) on a retry and `sluice.hedge` (`true`) on a hedged copy. Like it,
    /// `Client.Builder` leaves it out when there is no tracer.
    ///
    /// ```swift
    /// import Sluice
    /// import SluiceCurl
    /// import SluiceTracing
    ///
    /// var builder = Client.Builder(transport: CurlTransport())
    /// builder.add(TracingMiddleware())
    /// builder.add(AttemptTracingMiddleware())
    /// ```
    public struct AttemptTracingMiddleware: Middleware, EnvironmentConfigurable {
        public static let defaultPosition = MiddlewarePosition.attemptTracing

        /// How it traces: the same settings as ``TracingMiddleware``'s.
        public let configuration: TracingMiddleware.Configuration

        /// A middleware tracing attempts through `configuration.tracer`, or the bootstrapped one.
        public init(configuration: TracingMiddleware.Configuration = .default) {
            self.configuration = configuration
        }

        /// Itself, or `nil` (left out of the chain) when there is no tracer to record with.
        public func configured(by environment: [String: String]) -> (any Middleware)? {
            configuration.activeTracer == nil ? nil : self
        }

        public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
            guard let (tracer, span) = configuration.startSpan(for: request) else { return try await next(request, context) }
            if context.attempt > 1 { span.attributes["http.request.resend_count"] = context.attempt - 1 }
            span.report(context.attachments)
            var request = request
            do {
                request.headers = try FieldInjection.inject(span.context, into: request.headers, through: tracer)
            } catch {
                span.fail(error)
                span.end()
                throw error
            }
            return try await SpanEnding.run(span, request, context) {
                try await ServiceContext.withValue(span.context) { try await next(request, context) }
            }
        }
    }

    extension Client.Builder {
        /// Adds ``TracingMiddleware`` (a span per call) and ``AttemptTracingMiddleware`` (a span
        /// per attempt and hop, its context sent to the server), both with `configuration`.
        ///
        /// ```swift
        /// import Sluice
        /// import SluiceCurl
        /// import SluiceTracing
        ///
        /// var builder = Client.Builder(transport: CurlTransport())
        /// builder.addTracing()
        /// let client = builder.build()
        /// ```
        public mutating func addTracing(_ configuration: TracingMiddleware.Configuration = .default) {
            add(TracingMiddleware(configuration: configuration))
            add(AttemptTracingMiddleware(configuration: configuration))
        }
    }

    extension TracingMiddleware.Configuration {
        /// A client span for `request`, named by its operation or else its method, with the
        /// request's attributes; `nil` when there is no tracer to record with.
        func startSpan(for request: HTTPRequest) -> (tracer: any Tracer, span: any Span)? {
            guard let tracer = activeTracer else { return nil }
            let span = tracer.startSpan(request.operationName ?? request.method.rawValue, context: .current ?? .topLevel, ofKind: .client)
            span.describe(request, redaction.adding(request.redaction))
            return (tracer, span)
        }

        /// The tracer to record with, or `nil` when it is the no-op tracer (nothing to do).
        var activeTracer: (any Tracer)? {
            if let tracer { return tracer is NoOpTracer ? nil : tracer }
            // Nothing bootstrapped (the common case without tracing): one lock and one type check,
            // not InstrumentationSystem.tracer's search of the instruments.
            if InstrumentationSystem.instrument is NoOpInstrument { return nil }
            let tracer = InstrumentationSystem.tracer
            return tracer is NoOpTracer ? nil : tracer
        }
    }
#else
    #warning("SluiceTracing is empty: turn on the package trait \"Tracing\" where you depend on Sluice")
#endif
