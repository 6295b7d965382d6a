import Foundation
import Sluice

/// Runs one middleware in isolation over a ``MockTransport``, so a test can check what it sent on
/// and what it returned.
///
/// ```swift
/// import Testing
/// import Foundation
/// import Sluice
/// import SluiceTesting
///
/// let harness = MiddlewareHarness(TenantMiddleware(tenant: "acme"), replies: [.status(.ok)])
/// let response = try await harness.send(HTTPRequest(url: URL(string: "https://example.com")!))
/// #expect(response.status == .ok)
/// #expect(harness.forwarded.first?.headers["X-Tenant"] == "acme")
/// ```
///
/// Errors come out exactly as a pipeline attributes them: a failure in the middleware names its
/// stage, one in the transport names `MockTransport`.
public struct MiddlewareHarness: Sendable {
    /// The middleware's transport; script more replies or read what it received.
    public let transport: MockTransport
    private let pipeline: Pipeline

    /// `middleware` in front of `transport`.
    public init(_ middleware: some Middleware, transport: MockTransport) {
        self.transport = transport
        self.pipeline = Pipeline(middlewares: [middleware], transport: transport)
    }

    /// `middleware` in front of a transport that answers `replies` in order.
    public init(_ middleware: some Middleware, replies: [MockTransport.Reply]) {
        self.init(middleware, transport: MockTransport(replies: replies))
    }

    /// `middleware` in front of a transport that answers with `handler`.
    public init(
        _ middleware: some Middleware,
        _ handler: @escaping @Sendable (HTTPRequest, RequestContext) async throws -> MockTransport.Reply
    ) {
        self.init(middleware, transport: MockTransport(handler))
    }

    /// Sends `request` through the middleware.
    public func send(_ request: HTTPRequest, context: RequestContext = RequestContext()) async throws -> HTTPResponse {
        try await pipeline.send(request, context: context)
    }

    /// The requests the middleware passed on, in order.
    public var forwarded: [HTTPRequest] { transport.requests.map(\.request) }

    /// The bodies of the requests the middleware passed on, in order.
    public var forwardedBodies: [Data] { transport.requests.map(\.body) }
}
