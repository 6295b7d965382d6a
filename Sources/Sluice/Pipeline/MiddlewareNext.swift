import Foundation

/// The rest of the chain, as handed to ``Middleware/intercept(_:context:next:)``: the next
/// middleware, or finally the transport. Spelled `Next` inside a middleware.
///
/// Call it as a function, zero, one or several times:
///
/// ```swift
/// import Sluice
///
/// struct OnceMoreOn503: Middleware {
///     func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
///         let response = try await next(request, context)
///         if response.status == .serviceUnavailable {
///             var retry = context; retry.attempt += 1
///             return try await next(request, retry)
///         }
///         return response
///     }
/// }
/// ```
///
/// To test a middleware by hand, make one from a closure:
///
/// ```swift
/// import Sluice
///
/// let next = MiddlewareNext { request, _ in HTTPResponse(status: .ok) }
/// let response = try await MyMiddleware().intercept(request, context: RequestContext(), next: next)
/// ```
///
/// It is a struct over a pre-built link of the chain rather than a closure, so a hop costs one
/// direct call and no closure thunk.
public struct MiddlewareNext: Sendable {
    @usableFromInline let link: ChainLink
    /// Set while tracing: collects the time spent inside `next`, so the caller's own time can be
    /// told apart.
    @usableFromInline let innerTime: InnerTime?

    @usableFromInline
    init(link: ChainLink, innerTime: InnerTime? = nil) {
        self.link = link
        self.innerTime = innerTime
    }

    /// A `next` that runs `body`.
    public init(_ body: @escaping @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse) {
        self.init(link: ClosureLink(body))
    }

    /// Sends `request` down the rest of the chain.
    @inlinable
    public func callAsFunction(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        guard let innerTime else { return try await link.run(request, context) }
        return try await innerTime.measure { try await link.run(request, context) }
    }

    /// What the stages below this point will add to `request` (``CredentialSource``), in chain
    /// order, the transport's last; empty when none adds anything.
    public func credentials(for request: HTTPRequest) async -> [AddedCredentials] {
        let sources = link.credentialSources
        guard !sources.isEmpty else { return [] }
        var added: [AddedCredentials] = []
        for source in sources {
            if let credentials = await source.credentials(for: request) { added.append(credentials) }
        }
        return added
    }

    /// `url` as the transport at the end of the chain will send it
    /// (``HTTPTransport/urlAsSent(_:)``): for a stage that signs or keys on the URL. `url` itself
    /// for a chain made from a closure.
    public func urlAsSent(_ url: URL) -> URL {
        link.transport?.urlAsSent(url) ?? url
    }
}
