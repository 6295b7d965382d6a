/// One step of a ``Pipeline``: it sees every request on its way to the transport and every
/// response on its way back.
///
/// A middleware can
/// - change the request, then call `next` (headers, URL encoding, signing, gzip);
/// - answer without calling `next` (a cache hit, an offline gate);
/// - call `next` several times (retry);
/// - change the response on its way back (gunzip, cache write);
/// - only watch (logging, HUD).
///
/// An in-house middleware is a few lines:
///
/// ```swift
/// import Sluice
///
/// /// Adds the app's tenant to every request.
/// struct TenantMiddleware: Middleware {
///     let tenant: String
///
///     func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
///         var request = request
///         try request.headers.set(name: "X-Tenant", value: tenant)
///         return try await next(request, context)
///     }
/// }
///
/// let pipeline = Pipeline(middlewares: [TenantMiddleware(tenant: "acme")], transport: transport)
/// ```
///
/// Errors you throw are attributed to your middleware's stage (``SluiceError/stage``); throw
/// ``SluiceError`` with a fitting code when one fits, so callers and retry can match on it.
///
/// ### Middleware or transport?
/// Write a middleware when the work wraps an exchange that someone else performs. Write an
/// ``HTTPTransport`` only when you move the bytes yourself.
public protocol Middleware: Sendable {
    /// The rest of the chain: the next middleware, or finally the transport. Call it as
    /// `try await next(request, context)`, zero, one or several times. See ``MiddlewareNext``.
    typealias Next = MiddlewareNext

    /// Where ``Client/Builder`` places this middleware in the default order when no position is
    /// given. Defaults to ``MiddlewarePosition/application``.
    static var defaultPosition: MiddlewarePosition { get }

    /// The request options this middleware acts on (`[CachePolicyKey.self, …]`). A request that
    /// sets an option with a ``RequestOptionKey/reader`` on a chain where nothing reads it fails
    /// with `.misconfigured`. Defaults to none.
    static var readsOptions: [any RequestOptionKey.Type] { get }

    /// Handles one request.
    ///
    /// - Parameters:
    ///   - request: the request as the outer middleware left it.
    ///   - context: the call's id, attempt, deadline, progress sink and trace switch.
    ///   - next: the rest of the chain.
    /// - Returns: the response for the outer middleware.
    /// - Throws: anything; the pipeline attributes it to this middleware (see ``SluiceError``).
    func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse
}

extension Middleware {
    public static var defaultPosition: MiddlewarePosition { .application }
    public static var readsOptions: [any RequestOptionKey.Type] { [] }
}
