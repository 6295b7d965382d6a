import Foundation

/// An ordered chain of ``Middleware`` in front of an ``HTTPTransport``.
///
/// Index 0 is the outermost middleware: it sees the request first and the response last. The chain
/// is linked once, when the pipeline is made (a `ChainLink` per middleware, then one for the
/// transport), never per request; a call's extra middleware (`Client.send(_:with:)`) are linked
/// in front of it for that call alone.
///
/// ```swift
/// import Sluice
/// import SluiceCurl
/// import SluiceLogging
///
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
public struct Pipeline: HTTPTransport, CredentialSource {
    /// The middleware, outermost first.
    public let middlewares: [any Middleware]
    /// The transport at the end of the chain.
    public let transport: any HTTPTransport
    /// One stage per middleware, in order, then the transport.
    public let stages: [PipelineStage]

    private let chain: ChainLink
    /// The transport, when it adds cookies of its own below the chain.
    private let cookies: (any CookieSource)?
    /// The option keys some middleware or the transport reads: a handful, searched in order
    /// (cheaper than hashing each key a request sets).
    private let readOptions: [ObjectIdentifier]
    /// Whether a middleware encodes ``HTTPRequest/queryParameters`` (else the pipeline does).
    private let encodesQuery: Bool
    private let tracedChain: ChainLink
    /// How many stages were put in front of a pipeline's own by ``init(prepending:to:)``: their
    /// traced links record at indices below zero, the shared chain's from zero, so the recorder
    /// shifts every index by this.
    private let traceOffset: Int

    /// The privacy policy a ``ChainHandle`` applies to what a middleware sends through it (an
    /// outbox's replay): the client's, so a replay hides what every call hides.
    package let redaction: Redaction

    /// A pipeline over `middlewares` in exactly this order (index 0 outermost), then `transport`.
    public init(middlewares: [any Middleware], transport: any HTTPTransport) {
        self.init(middlewares: middlewares, transport: transport, redaction: .default)
    }

    /// A client's pipeline: its ``ChainHandle`` applies the client's `redaction` to what it sends.
    package init(middlewares: [any Middleware], transport: any HTTPTransport, redaction: Redaction) {
        self.redaction = redaction
        self.middlewares = middlewares
        self.transport = transport
        self.cookies = (transport as? any CookieSource).flatMap { $0.keepsCookies ? $0 : nil }
        let read = middlewares.flatMap { type(of: $0).readsOptions } + type(of: transport).readsOptions
        readOptions = Array(Set(read.map { ObjectIdentifier($0) }))
        encodesQuery = readOptions.contains(ObjectIdentifier(QueryParametersKey.self))
        let stages = middlewares.map { PipelineStage.middleware(type(of: $0)) } + [.transport(type(of: transport))]
        self.stages = stages
        traceOffset = 0

        // Built once, from the transport outward: index 0 ends up outermost.
        let transportLink = TransportLink(transport, stage: stages[middlewares.count])
        var link: ChainLink = transportLink
        var traced: ChainLink = TracedTransportLink(transportLink, index: middlewares.count)
        for (index, middleware) in middlewares.enumerated().reversed() {
            link = MiddlewareLink(middleware, stage: stages[index], next: link)
            traced = TracedMiddlewareLink(middleware, stage: stages[index], index: index, next: traced)
        }
        chain = link
        tracedChain = traced
        for case let attachable as any ChainAttachable in middlewares {
            attachable.attach(to: ChainHandle(link, cookies: cookies, redaction: redaction))
        }
    }

    /// `extra` in front of `pipeline`'s own chain, for one call (`Client.send(_:with:)`): only
    /// `extra` is linked (and attached, when it is ``ChainAttachable``); the chain behind it is
    /// `pipeline`'s, shared as it is, so its middleware are not linked or attached again.
    package init(prepending extra: [any Middleware], to pipeline: Pipeline) {
        middlewares = extra + pipeline.middlewares
        transport = pipeline.transport
        redaction = pipeline.redaction
        cookies = pipeline.cookies
        let read = extra.flatMap { type(of: $0).readsOptions }.map { ObjectIdentifier($0) }
        readOptions = pipeline.readOptions + read.filter { !pipeline.readOptions.contains($0) }
        encodesQuery = readOptions.contains(ObjectIdentifier(QueryParametersKey.self))
        let extraStages = extra.map { PipelineStage.middleware(type(of: $0)) }
        stages = extraStages + pipeline.stages
        traceOffset = pipeline.traceOffset + extra.count
        var link = pipeline.chain
        var traced = pipeline.tracedChain
        for (index, middleware) in extra.enumerated().reversed() {
            link = MiddlewareLink(middleware, stage: extraStages[index], next: link)
            traced = TracedMiddlewareLink(middleware, stage: extraStages[index], index: index - traceOffset, next: traced)
        }
        chain = link
        tracedChain = traced
        for case let attachable as any ChainAttachable in extra {
            attachable.attach(to: ChainHandle(link, cookies: cookies, redaction: redaction))
        }
    }

    /// What this pipeline's stages and transport add to `request`, all of them together (a
    /// pipeline nested as another's transport is that chain's source).
    public func credentials(for request: HTTPRequest) async -> AddedCredentials? {
        let added = await MiddlewareNext(link: chain).credentials(for: request)
        guard let first = added.first else { return nil }
        return added.dropFirst().reduce(first) { joined, next in
            // One stage that cannot tell whom it speaks for makes the whole unknown.
            let identity = joined.identity.flatMap { one in next.identity.map { one + "\n" + $0 } }
            return AddedCredentials(fields: joined.fields.union(next.fields), identity: identity)
        }
    }

    /// The URL as this pipeline's transport will send it.
    public func urlAsSent(_ url: URL) -> URL { transport.urlAsSent(url) }

    /// The transport's preferred executor (see `HTTPTransport.preferredExecutor`).
    public var preferredExecutor: (any TaskExecutor)? { transport.preferredExecutor }

    /// Sends `request` through every middleware and the transport.
    ///
    /// - Throws: ``SluiceError`` naming the stage that failed; `CancellationError` unchanged.
    ///   `.misconfigured` before anything is sent when the request sets an option that nothing in
    ///   the chain reads (naming the option and the middleware that would);
    ///   `.invalidHeader` before anything is sent when a field of the request's dictionary literal
    ///   was invalid (``HTTPFields/invalidLiteral``), and for a response whose literal was.
    public func send(_ request: HTTPRequest, context: RequestContext = RequestContext()) async throws -> HTTPResponse {
        try request.headers.validated()
        let response =
            if request.options.count > 0 {
                try await sendChecked(try checkedOptions(request), context: context)
            } else {
                try await sendChecked(request, context: context)
            }
        try response.headers.validated()
        return response
    }

    private func sendChecked(_ request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
        if cookies == nil, !context.isTracing { return try await chain.run(request, context) }
        var context = context
        if context.cookieSource == nil { context.cookieSource = cookies }
        guard context.isTracing else { return try await chain.run(request, context) }
        let recorder = TraceRecorder(stages: stages, offset: traceOffset)
        context.recorder = recorder
        var response = try await tracedChain.run(request, context)
        response.trace = recorder.snapshot()
        return response
    }

    /// `request` with its query parameters encoded when no middleware will, after checking that
    /// every option it sets is read by something in the chain.
    ///
    /// - Throws: `.misconfigured` naming the first option nothing reads.
    func checkedOptions(_ request: HTTPRequest) throws(SluiceError) -> HTTPRequest {
        for stored in request.options.storage.indices {
            let key = request.options.storage[stored].key
            guard let reader = key.reader, !readOptions.contains(ObjectIdentifier(key)) else { continue }
            throw SluiceError(
                .misconfigured,
                "\(reader.property) is set on \(request), but nothing in this chain reads it: add \(reader.middleware) "
                    + "(from \(reader.module)) to the client"
            )
        }
        guard !encodesQuery, case .dictionary(let pairs) = request.queryParameters, !pairs.isEmpty else { return request }
        var encoded = request
        encoded.url = try URLQuery.appending(ParameterEncoder.default.query(pairs), to: request.url)
        encoded.options.remove(QueryParametersKey.self)
        return encoded
    }
}
