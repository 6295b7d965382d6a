import Sluice

/// A bearer token on every request; on a 401, one refresh and one retry.
///
/// The refresh is single-flight: however many requests get a 401 at once, ``Configuration/refresh``
/// runs once and they all retry with its token (Alamofire's most-reported bug is duplicate
/// refreshes). A request whose 401 came with a token that has already been replaced retries with
/// the new one without refreshing again. A body that cannot be sent twice (a one-shot stream) is
/// not retried: the 401 is returned. A failing refresh fails the request with its error.
///
/// ```swift
/// import SluiceHeaders
///
/// let auth = AuthTokenMiddleware(configuration: .init(
///     token: { try await keychain.accessToken() },
///     refresh: { try await authClient.refreshAccessToken() }
/// ))
/// ```
///
/// It is a `CredentialSource`: placed below a cache (`at: .network`, so every attempt
/// gets the current token), it tells the cache the request will carry a token and whose.
public struct AuthTokenMiddleware: Middleware, CredentialSource {
    /// Where tokens come from.
    public struct Configuration: Sendable {
        /// The current token.
        public var token: @Sendable () async throws -> String
        /// Gets a new token (after a 401); its result is used from then on.
        public var refresh: @Sendable () async throws -> String
        /// The header and the scheme: `Authorization: Bearer <token>`.
        public var headerName: String
        /// What precedes the token in the field (`Bearer`); empty for the token alone.
        public var scheme: String

        /// Settings with each value given, or its default.
        public init(
            token: @escaping @Sendable () async throws -> String, refresh: @escaping @Sendable () async throws -> String,
            headerName: String = "Authorization", scheme: String = "Bearer"
        ) {
            self.token = token
            self.refresh = refresh
            self.headerName = headerName
            self.scheme = scheme
        }
    }

    public static let defaultPosition = MiddlewarePosition.headers

    /// How it behaves.
    public let configuration: Configuration
    private let state = TokenState()

    /// One with `configuration`.
    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        // A redirect left the origin: another host never gets the token.
        guard request.sendsCredentials else { return try await next(request, context) }
        let token = try await state.current(configuration.token)
        let response = try await next(try authorized(request, token), context)
        guard response.status.code == 401, request.body.isReplayable else { return response }
        let fresh = try await state.refreshed(after: token, configuration.refresh)
        var retry = context
        retry.attempt = retry.attempt == .max ? .max : retry.attempt + 1
        return try await next(try authorized(request, fresh), retry)
    }

    private func authorized(_ request: HTTPRequest, _ token: String) throws(SluiceError) -> HTTPRequest {
        var request = request
        try request.headers.set(name: configuration.headerName, value: configuration.scheme.isEmpty ? token : configuration.scheme + " " + token)
        request.credentialFields.insert(configuration.headerName.lowercased())
        return request
    }

    /// The token's field, for the current token (the cache keeps only its SHA-256); `nil` for a
    /// request that goes to another origin after a redirect. A provider that fails leaves the
    /// identity unknown (the request itself then fails with the provider's error).
    public func credentials(for request: HTTPRequest) async -> AddedCredentials? {
        guard request.sendsCredentials else { return nil }
        let token = try? await state.current(configuration.token)
        return AddedCredentials(fields: [configuration.headerName], identity: token.map { "token " + $0 })
    }

    /// Refreshes so far (for tests and diagnostics).
    public var refreshCount: Int { state.refreshCount }
}

/// The token in use and the refresh in flight, shared by copies of one middleware.
final class TokenState: Sendable {
    private struct State {
        var token: String?
        var refreshes = 0
    }

    private let state = Locked(State())
    /// Refreshes in flight, by the token they replace.
    private let refreshes = SingleFlight<String, String>()

    var refreshCount: Int { state.withLock { $0.refreshes } }

    /// The token to use: the last refreshed one, else the provider's.
    func current(_ provider: @Sendable () async throws -> String) async throws -> String {
        if let token = state.withLock({ $0.token }) { return token }
        return try await provider()
    }

    /// A token newer than `stale`: the one a refresh already produced, the one a refresh in flight
    /// will produce, or a new refresh's.
    func refreshed(after stale: String, _ refresh: @escaping @Sendable () async throws -> String) async throws -> String {
        try await refreshes.run(stale) {
            if let token = state.withLock({ $0.token }), token != stale { return token }
            state.withLock { $0.refreshes += 1 }
            let token = try await refresh()
            state.withLock { $0.token = token }
            return token
        }
    }
}
