/// A middleware that sends requests of its own through the whole chain it is part of, as new
/// calls from the top: an outbox replaying stored writes, so that each replay is given a fresh
/// token and a fresh signature by the chain's own stages. Each ``Pipeline`` built with such a
/// middleware calls ``attach(to:)`` once, with a handle to itself.
///
/// ```swift
/// import Sluice
/// import Synchronization
///
/// final class Route: Sendable { let chain = Mutex<ChainHandle?>(nil) }
///
/// struct Replayer: ChainAttachable {
///     let route: Route
///     func attach(to chain: ChainHandle) { route.chain.withLock { $0 = chain } }
///     func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
///         try await next(request, context)
///     }
///     func replay(_ request: HTTPRequest) async throws -> HTTPResponse? {
///         try await route.chain.withLock { $0 }?.send(request)
///     }
/// }
/// ```
public protocol ChainAttachable: Middleware {
    /// Called once by each pipeline this middleware is built into, with that pipeline's chain.
    func attach(to chain: ChainHandle)
}

/// A pipeline's whole chain, held without keeping the pipeline alive: a middleware can keep it
/// (``ChainAttachable``) without a reference cycle, and it stops working once the pipeline (its
/// client) is gone.
///
/// ```swift
/// import Sluice
///
/// if let response = try await chain.send(request) { print(response.status) }   // nil: the client is gone
/// ```
public struct ChainHandle: Sendable {
    private let link: WeakLink
    private let cookies: (any CookieSource)?
    /// The pipeline's core stages, run on each request sent, as every other door runs them.
    private let preparation: RequestPreparation

    init(_ link: ChainLink, cookies: (any CookieSource)?, preparation: RequestPreparation) {
        self.link = WeakLink(link)
        self.cookies = cookies
        self.preparation = preparation
    }

    /// Whether the pipeline still exists.
    public var isAlive: Bool { link.link != nil }

    /// Sends `request` through the core's own stages (its client's base URL and privacy policy
    /// among them), every middleware and the transport, as ``Pipeline/send(_:context:)`` does;
    /// `nil` when the pipeline is gone.
    ///
    /// - Throws: what ``Pipeline/send(_:context:)`` throws.
    public func send(_ request: HTTPRequest, context: RequestContext = RequestContext()) async throws -> HTTPResponse? {
        guard let link = link.link else { return nil }
        var context = context
        if context.cookieSource == nil { context.cookieSource = cookies }
        return try await link.run(preparation.prepare(request), context)
    }
}

/// A weak reference to a chain link.
final class WeakLink: Sendable {
    weak let link: ChainLink?

    init(_ link: ChainLink) { self.link = link }
}
