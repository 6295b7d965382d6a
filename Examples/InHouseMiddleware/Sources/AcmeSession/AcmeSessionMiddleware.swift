import Foundation
import Sluice

/// Acme's session header, as a company would write its own middleware module: every request
/// carries `X-Acme-Session`; when the API answers `419 Session Expired`, the session is renewed
/// once (one renewal shared by every call that hit the expiry) and the request is sent again.
///
/// ```swift
/// let sessions = AcmeSessionMiddleware(configuration: .init(
///     current: { await store.session },
///     renew: { try await store.renew() }))
/// var builder = Client.Builder(transport: CurlTransport())
/// builder.add(sessions)                 // lands at .headers: before the cache key and signing
/// ```
public struct AcmeSessionMiddleware: Middleware {
    public struct Configuration: Sendable {
        /// The session to send.
        public var current: @Sendable () async throws -> String
        /// Makes a new session after an expiry.
        public var renew: @Sendable () async throws -> String
        /// The status Acme's API answers for an expired session.
        public var expiredStatus: Int

        public init(
            current: @escaping @Sendable () async throws -> String,
            renew: @escaping @Sendable () async throws -> String, expiredStatus: Int = 419
        ) {
            self.current = current
            self.renew = renew
            self.expiredStatus = expiredStatus
        }
    }

    public static let headerName = "X-Acme-Session"
    /// Where the builder puts it: with the other header middleware.
    public static let defaultPosition = MiddlewarePosition.headers

    public let configuration: Configuration
    /// Renewals in flight, by the session they replace.
    private let renewals = SingleFlight<String, String>()

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        var request = request
        let session = try await configuration.current()
        try request.headers.set(name: Self.headerName, value: session)
        let response = try await next(request, context)
        guard response.status.code == configuration.expiredStatus, request.body.isReplayable else { return response }
        // One renewal for every call that saw this session expire; a call whose session was
        // already replaced takes the new one without renewing again.
        let renewed = try await renewals.run(session) {
            let now = try await configuration.current()
            return now != session ? now : try await configuration.renew()
        }
        try request.headers.set(name: Self.headerName, value: renewed)
        var retry = context
        retry.attempt += 1
        return try await next(request, retry)
    }
}
