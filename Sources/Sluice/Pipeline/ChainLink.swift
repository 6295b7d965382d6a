/// One pre-built link of a ``Pipeline``'s chain. The pipeline builds the links once, at init;
/// running a request is then one `run` call per stage. Not public: users see ``MiddlewareNext``.
///
/// Every link is immutable after init and holds only `Sendable` values.
@usableFromInline
class ChainLink: @unchecked Sendable {
    // @unchecked: a non-final class cannot be checked by the compiler; every subclass below has
    // only `let` properties of `Sendable` types, so sharing a link between tasks is safe.

    @usableFromInline
    func run(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        fatalError("ChainLink.run is abstract")
    }
}

/// Runs a middleware in front of the next link and attributes its errors to its stage.
final class MiddlewareLink: ChainLink, @unchecked Sendable {
    let middleware: any Middleware
    let stage: PipelineStage
    let next: MiddlewareNext

    init(_ middleware: any Middleware, stage: PipelineStage, next: ChainLink) {
        self.middleware = middleware
        self.stage = stage
        self.next = MiddlewareNext(link: next)
    }

    override func run(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        do {
            return try await middleware.intercept(request, context: context, next: next)
        } catch {
            throw SluiceError.attributing(error, to: stage)
        }
    }
}

/// Runs the transport, fills in ``HTTPResponse/request``, and attributes its errors to its stage.
final class TransportLink: ChainLink, @unchecked Sendable {
    let transport: any HTTPTransport
    let stage: PipelineStage

    init(_ transport: any HTTPTransport, stage: PipelineStage) {
        self.transport = transport
        self.stage = stage
    }

    override func run(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        do {
            // A field a middleware added from an invalid literal never reaches the transport.
            try request.headers.validated()
            var response = try await transport.send(request, context: context)
            if response.request == nil { response.request = request }
            return response
        } catch {
            throw SluiceError.attributing(error, to: stage)
        }
    }
}

/// The traced twin of ``MiddlewareLink``: records the middleware's own time (time inside `next`
/// excluded) into the call's ``TraceRecorder``.
final class TracedMiddlewareLink: ChainLink, @unchecked Sendable {
    let middleware: any Middleware
    let stage: PipelineStage
    let index: Int
    let next: ChainLink

    init(_ middleware: any Middleware, stage: PipelineStage, index: Int, next: ChainLink) {
        self.middleware = middleware
        self.stage = stage
        self.index = index
        self.next = next
    }

    override func run(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let innerTime = InnerTime()
        let start = TraceRecorder.now()
        defer {
            let total = TraceRecorder.now() &- start
            let inner = innerTime.value
            context.recorder?.record(stage: index, nanoseconds: total > inner ? total - inner : 0)
        }
        do {
            return try await middleware.intercept(
                request, context: context, next: MiddlewareNext(link: next, innerTime: innerTime)
            )
        } catch {
            throw SluiceError.attributing(error, to: stage)
        }
    }
}

/// The traced twin of ``TransportLink``.
final class TracedTransportLink: ChainLink, @unchecked Sendable {
    let transport: TransportLink
    let index: Int

    init(_ transport: TransportLink, index: Int) {
        self.transport = transport
        self.index = index
    }

    override func run(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let start = TraceRecorder.now()
        defer { context.recorder?.record(stage: index, nanoseconds: TraceRecorder.now() &- start) }
        return try await transport.run(request, context)
    }
}

/// A link that runs a closure: for ``MiddlewareNext/init(_:)``.
final class ClosureLink: ChainLink, @unchecked Sendable {
    let body: @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse

    init(_ body: @escaping @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse) {
        self.body = body
    }

    override func run(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        try await body(request, context)
    }
}
