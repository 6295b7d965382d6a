/// An ordered chain of ``Middleware`` in front of an ``HTTPTransport``.
///
/// Index 0 is the outermost middleware: it sees the request first and the response last. The chain
/// is composed into one closure when the pipeline is made, never per request.
///
/// ```swift
/// let pipeline = Pipeline(
///     middlewares: [LoggingMiddleware(), TenantMiddleware(tenant: "acme")],
///     transport: CurlTransport()
/// )
/// let response = try await pipeline.send(HTTPRequest(url: url))
/// ```
///
/// Every error is attributed to the stage that threw it (``SluiceError/stage``), and
/// `CancellationError` passes through unwrapped. With ``RequestContext/isTracing`` the call runs a
/// second, timed copy of the chain and the response carries a ``PipelineTrace``; without it there
/// is no timing code on the path at all.
///
/// A pipeline is itself an ``HTTPTransport``, so pipelines nest.
public struct Pipeline: HTTPTransport {
    public let middlewares: [any Middleware]
    public let transport: any HTTPTransport
    /// One stage per middleware, in order, then the transport.
    public let stages: [PipelineStage]

    private let chain: Middleware.Next
    private let tracedChain: Middleware.Next

    public init(middlewares: [any Middleware], transport: any HTTPTransport) {
        self.middlewares = middlewares
        self.transport = transport
        let stages = middlewares.map { PipelineStage.middleware(type(of: $0)) } + [.transport(type(of: transport))]
        self.stages = stages
        chain = Self.compose(middlewares, stages, transport)
        tracedChain = Self.composeTraced(middlewares, stages, transport)
    }

    /// Sends `request` through every middleware and the transport.
    ///
    /// - Throws: ``SluiceError`` naming the stage that failed; `CancellationError` unchanged.
    public func send(_ request: HTTPRequest, context: RequestContext = RequestContext()) async throws -> HTTPResponse {
        guard context.isTracing else { return try await chain(request, context) }
        var context = context
        let recorder = TraceRecorder(stages: stages)
        context.recorder = recorder
        var response = try await tracedChain(request, context)
        response.trace = recorder.snapshot()
        return response
    }

    // MARK: Composition (once, at init)

    private static func compose(
        _ middlewares: [any Middleware], _ stages: [PipelineStage], _ transport: any HTTPTransport
    ) -> Middleware.Next {
        let transportStage = stages[middlewares.count]
        var next: Middleware.Next = { request, context in
            do {
                var response = try await transport.send(request, context: context)
                if response.request == nil { response.request = request }
                return response
            } catch {
                throw SluiceError.attributing(error, to: transportStage)
            }
        }
        for (middleware, stage) in zip(middlewares, stages).reversed() {
            let inner = next
            next = { request, context in
                do {
                    return try await middleware.intercept(request, context: context, next: inner)
                } catch {
                    throw SluiceError.attributing(error, to: stage)
                }
            }
        }
        return next
    }

    private static func composeTraced(
        _ middlewares: [any Middleware], _ stages: [PipelineStage], _ transport: any HTTPTransport
    ) -> Middleware.Next {
        let transportIndex = middlewares.count
        let plainTransport = compose([], [stages[transportIndex]], transport)
        var next: Middleware.Next = { request, context in
            let start = TraceRecorder.now()
            defer { context.recorder?.record(stage: transportIndex, nanoseconds: TraceRecorder.now() &- start) }
            return try await plainTransport(request, context)
        }
        for (index, (middleware, stage)) in zip(middlewares, stages).enumerated().reversed() {
            let inner = next
            next = { request, context in
                let innerTime = InnerTime()
                let timedInner: Middleware.Next = { request, context in
                    let start = TraceRecorder.now()
                    defer { innerTime.add(TraceRecorder.now() &- start) }
                    return try await inner(request, context)
                }
                let start = TraceRecorder.now()
                defer {
                    let total = TraceRecorder.now() &- start
                    let own = total > innerTime.value ? total - innerTime.value : 0
                    context.recorder?.record(stage: index, nanoseconds: own)
                }
                do {
                    return try await middleware.intercept(request, context: context, next: timedInner)
                } catch {
                    throw SluiceError.attributing(error, to: stage)
                }
            }
        }
        return next
    }
}
