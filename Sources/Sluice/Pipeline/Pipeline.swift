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
    /// The core's own stages, run on every request before the first middleware, by every door.
    package let preparation: RequestPreparation
    private let tracedChain: ChainLink
    /// How many stages were put in front of a pipeline's own by ``init(prepending:to:)``: their
    /// traced links record at indices below zero, the shared chain's from zero, so the recorder
    /// shifts every index by this.
    private let traceOffset: Int

    /// A pipeline over `middlewares` in exactly this order (index 0 outermost), then `transport`:
    /// nothing is added, so it follows redirects only when the list has a ``RedirectMiddleware``
    /// (a ``Client`` puts one at ``MiddlewarePosition/redirects``). Relative URLs are refused, JSON
    /// bodies are encoded by `JSONEncoder()` and requests are held to ``Redaction/default``.
    public init(middlewares: [any Middleware], transport: any HTTPTransport) {
        self.init(middlewares: middlewares, transport: transport, baseURL: nil, redaction: .default, encoder: JSONEncoder())
    }

    /// A client's pipeline: its core stages join relative URLs to `baseURL`, hold each request to
    /// `redaction` and encode JSON bodies by `encoder`, for every door, its ``ChainHandle``s'
    /// replays included.
    package init(middlewares: [any Middleware], transport: any HTTPTransport, baseURL: URL?, redaction: Redaction, encoder: JSONEncoder) {
        self.middlewares = middlewares
        self.transport = transport
        self.cookies = (transport as? any CookieSource).flatMap { $0.keepsCookies ? $0 : nil }
        let read = middlewares.flatMap { type(of: $0).readsOptions } + type(of: transport).readsOptions
        preparation = RequestPreparation(
            baseURL: baseURL, redaction: redaction, encoder: encoder, readOptions: Array(Set(read.map { ObjectIdentifier($0) })))
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
            attachable.attach(to: ChainHandle(link, cookies: cookies, preparation: preparation))
        }
    }

    /// `extra` in front of `pipeline`'s own chain, for one call (`Client.send(_:with:)`): only
    /// `extra` is linked (and attached, when it is ``ChainAttachable``); the chain behind it is
    /// `pipeline`'s, shared as it is, so its middleware are not linked or attached again.
    package init(prepending extra: [any Middleware], to pipeline: Pipeline) {
        middlewares = extra + pipeline.middlewares
        transport = pipeline.transport
        cookies = pipeline.cookies
        preparation = pipeline.preparation.reading(extra.flatMap { type(of: $0).readsOptions }.map { ObjectIdentifier($0) })
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
            attachable.attach(to: ChainHandle(link, cookies: cookies, preparation: preparation))
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

    /// Sends `request` through the core's own stages (the same a ``Client`` runs), every
    /// middleware and the transport.
    ///
    /// - Throws: ``SluiceError`` naming the stage that failed; `CancellationError` unchanged.
    ///   Before anything is sent: `.invalidURL` for a relative URL (a bare pipeline has no base
    ///   URL); `.misconfigured` when the request sets an option that nothing in the chain reads
    ///   (naming the option and the middleware that would); `.invalidHeader` when a field of the
    ///   request's dictionary literal was invalid (``HTTPFields/invalidLiteral``), and for a
    ///   response whose literal was.
    public func send(_ request: HTTPRequest, context: RequestContext = RequestContext()) async throws -> HTTPResponse {
        try await sendPrepared(preparation.prepare(request), context: context)
    }

    /// Sends a request the core's stages already prepared (``RequestPreparation/prepare(_:)``)
    /// through every middleware and the transport.
    package func sendPrepared(_ request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
        let response = try await sendChecked(request, context: context)
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
}
