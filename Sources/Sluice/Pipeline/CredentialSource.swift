/// A stage that adds credentials to a request (a signer, a token, the transport's own passwords)
/// tells the stages above it what it will add, before it does: so a stage that decides on the
/// request (a shared cache, which must not store one identity's answer for another) decides on
/// the request as it will really be sent, not on the one it sees.
///
/// A ``Pipeline`` asks every middleware and its transport that conform, below the asking stage
/// and in chain order, through ``MiddlewareNext/credentials(for:)``.
///
/// ```swift
/// import Sluice
///
/// struct APIKeyMiddleware: Middleware, CredentialSource {
///     let key: String
///     func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
///         var request = request
///         try request.headers.set(name: "X-Api-Key", value: key)
///         request.credentialFields.insert("x-api-key")
///         return try await next(request, context)
///     }
///     func credentials(for request: HTTPRequest) async -> AddedCredentials? {
///         AddedCredentials(fields: ["x-api-key"], identity: key)
///     }
/// }
/// ```
public protocol CredentialSource: Sendable {
    /// What this stage will add to `request` when it reaches it; `nil` when it adds nothing (a
    /// redirect that left the origin, a host its credentials do not cover).
    func credentials(for request: HTTPRequest) async -> AddedCredentials?
}

/// The credentials a stage will add to a request: the header fields it sets and whom they speak
/// for.
///
/// ```swift
/// import Sluice
///
/// let added = AddedCredentials(fields: ["authorization"], identity: "AKIDEXAMPLE/eu-west-1/execute-api")
/// added.fields      // ["authorization"]
/// ```
public struct AddedCredentials: Sendable, Hashable {
    /// The names (lowercase) of the header fields set; empty when the credentials go in the query
    /// or the body.
    public var fields: Set<String>
    /// Who the credentials speak for, the same for every request of one principal (an access key
    /// ID with its scope, a token). Stages that keep it store only its SHA-256 fingerprint. `nil`
    /// when the stage cannot tell: each request then counts as a different identity.
    public var identity: String?

    /// Credentials in `fields` (names in any case) for `identity`.
    public init(fields: Set<String>, identity: String?) {
        self.fields = Set(fields.map { $0.lowercased() })
        self.identity = identity
    }
}
