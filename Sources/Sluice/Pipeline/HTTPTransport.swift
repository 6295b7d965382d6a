import Foundation

/// The end of a ``Pipeline``: moves a request over the wire and returns the response.
///
/// `CurlTransport` (module `SluiceCurl`) is the real one; `MockTransport` (module
/// `SluiceTesting`) answers from a script. The core never links a network library.
///
/// ```swift
/// import Sluice
///
/// struct EchoTransport: HTTPTransport {
///     func send(_ request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
///         var response = HTTPResponse(status: .ok, body: try await request.body.collect())
///         response.request = request
///         return response
///     }
/// }
/// ```
///
/// A transport should throw ``SluiceError`` with the code that fits (`.timedOut`,
/// `.cannotConnect`, `.dnsFailure`, `.tlsFailure`, `.bodyTooLarge`, …), honour
/// ``RequestContext/deadline``, report ``RequestContext/progress``, set ``HTTPResponse/request``
/// and ``HTTPResponse/metrics``, and let `CancellationError` through.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the server's response.
    ///
    /// - Parameters:
    ///   - request: the request exactly as the innermost middleware left it.
    ///   - context: the call's id, attempt, deadline and progress sink.
    /// - Returns: the response, with ``HTTPResponse/source`` `.network`.
    /// - Throws: ``SluiceError`` for failures, `CancellationError` when cancelled.
    func send(_ request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse

    /// The request options this transport acts on (CurlTransport lists the key behind
    /// `request.maxResponseBodySize`); see
    /// ``Middleware/readsOptions``. Defaults to none.
    static var readsOptions: [any RequestOptionKey.Type] { get }

    /// The executor a call should run on, so that the chain, the transfer and the resumption share
    /// one thread instead of waking another for each step; `nil` (the default) for any.
    ///
    /// A transport that drives its I/O from an event thread returns that thread's executor here,
    /// as `CurlTransport` does. Callers opt in by running under it; a ``Client`` then keeps each of
    /// their calls on it too:
    ///
    /// ```swift
    /// try await withTaskExecutorPreference(client.pipeline.preferredExecutor) {
    ///     for id in 1...100 { _ = try await client.send(client.makeRequest(.get, "items/\(id)")) }
    /// }
    /// ```
    var preferredExecutor: (any TaskExecutor)? { get }

    /// `url` as this transport will put it on the wire: `CurlTransport` writes numeric hosts as
    /// dotted quads (`127.1` and `2130706433` as `127.0.0.1`), removes dot segments and writes IPv6
    /// literals in their shortest form. Stages that sign or key on a URL ask for it through
    /// ``MiddlewareNext/urlAsSent(_:)``. Defaults to `url` unchanged.
    func urlAsSent(_ url: URL) -> URL

    /// This transport's connections and the transfers waiting for one, by origin, in no set
    /// order: `CurlTransport` counts its pools. Defaults to none.
    func poolStatistics() async -> [PoolStatistics]
}

extension HTTPTransport {
    public static var readsOptions: [any RequestOptionKey.Type] { [] }

    /// `nil`: calls run wherever their task runs.
    public var preferredExecutor: (any TaskExecutor)? { nil }

    /// `url` unchanged.
    public func urlAsSent(_ url: URL) -> URL { url }

    /// None: a transport without a pool of its own.
    public func poolStatistics() async -> [PoolStatistics] { [] }
}
