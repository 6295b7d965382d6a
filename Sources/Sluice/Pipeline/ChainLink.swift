/// One pre-built link of a ``Pipeline``'s chain. The pipeline builds the links once, at init;
/// running a request is then one `run` call per stage. Not public: users see ``MiddlewareNext``.
///
/// Every link is immutable after init and holds only `Sendable` values.
@usableFromInline
class ChainLink: @unchecked Sendable {
    // @unchecked: a non-final class cannot be checked by the compiler; every subclass below has
    // only `let` properties of `Sendable` types, so sharing a link between tasks is safe.

    /// The stages from this link to the transport that add credentials, in chain order.
    let credentialSources: [any CredentialSource]
    /// The transport at the end of the chain; `nil` for a closure.
    let transport: (any HTTPTransport)?
    /// The stages from this link to the transport that encrypt bodies, in chain order.
    let sealers: [any BodySealer]

    init(credentialSources: [any CredentialSource], transport: (any HTTPTransport)?, sealers: [any BodySealer] = []) {
        self.credentialSources = credentialSources
        self.transport = transport
        self.sealers = sealers
    }

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
        super.init(
            credentialSources: Self.sources(middleware, below: next), transport: next.transport, sealers: Self.sealers(middleware, below: next))
    }

    override func run(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        do {
            return try await middleware.intercept(request, context: context, next: next).attributingStreamErrors(to: stage)
        } catch {
            throw SluiceError.attributing(error, to: stage)
        }
    }
}

/// Runs the transport, fills in ``HTTPResponse/request``, and attributes its errors to its stage.
final class TransportLink: ChainLink, @unchecked Sendable {
    let sender: any HTTPTransport
    let stage: PipelineStage

    init(_ transport: any HTTPTransport, stage: PipelineStage) {
        self.sender = transport
        self.stage = stage
        super.init(credentialSources: (transport as? any CredentialSource).map { [$0] } ?? [], transport: transport)
    }

    override func run(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        do {
            // A field a middleware added from an invalid literal never reaches the transport.
            try request.headers.validated()
            var response = try await sender.send(request, context: context)
            if response.request == nil { response.request = request }
            return response.attributingStreamErrors(to: stage)
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
        super.init(
            credentialSources: Self.sources(middleware, below: next), transport: next.transport, sealers: Self.sealers(middleware, below: next))
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
            ).attributingStreamErrors(to: stage)
        } catch {
            throw SluiceError.attributing(error, to: stage)
        }
    }
}

/// The traced twin of ``TransportLink``.
final class TracedTransportLink: ChainLink, @unchecked Sendable {
    let link: TransportLink
    let index: Int

    init(_ link: TransportLink, index: Int) {
        self.link = link
        self.index = index
        super.init(credentialSources: link.credentialSources, transport: link.transport, sealers: link.sealers)
    }

    override func run(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let start = TraceRecorder.now()
        defer { context.recorder?.record(stage: index, nanoseconds: TraceRecorder.now() &- start) }
        return try await link.run(request, context)
    }
}

/// A link that runs a closure: for ``MiddlewareNext/init(_:)``.
final class ClosureLink: ChainLink, @unchecked Sendable {
    let body: @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse

    init(_ body: @escaping @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse) {
        self.body = body
        super.init(credentialSources: [], transport: nil)
    }

    override func run(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        try await body(request, context)
    }
}

extension HTTPResponse {
    /// This response, its streamed body (if any) naming `stage` in the errors read from it: a
    /// stage that fails while the caller reads (a decryptor, a decoder, the transport) is named
    /// as it is when it fails before answering.
    @inline(__always)
    func attributingStreamErrors(to stage: PipelineStage) -> HTTPResponse {
        guard let stream = bodyStream else { return self }
        var response = self
        response.bodyStream = stream.attributingErrors(to: stage)
        return response
    }
}

extension ChainLink {
    /// `middleware`, when it adds credentials, then the sources below it.
    static func sources(_ middleware: any Middleware, below next: ChainLink) -> [any CredentialSource] {
        guard let source = middleware as? any CredentialSource else { return next.credentialSources }
        return [source] + next.credentialSources
    }

    /// `middleware`, when it encrypts bodies, then the sealers below it.
    static func sealers(_ middleware: any Middleware, below next: ChainLink) -> [any BodySealer] {
        guard let sealer = middleware as? any BodySealer else { return next.sealers }
        return [sealer] + next.sealers
    }
}
