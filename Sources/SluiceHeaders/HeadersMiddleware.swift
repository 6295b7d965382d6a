import Sluice

/// Adds header fields to every request: fixed ones, and ones an `async` provider computes per
/// request (a token store, a clock, a device registry).
///
/// A field the request already has is kept, unless ``Configuration/overridesRequest`` is on; a
/// provider's fields come after the fixed ones and win over them.
///
/// ```swift
/// import Foundation
/// import Sluice
/// import SluiceHeaders
///
/// let headers = HeadersMiddleware(configuration: .init(
///     fields: ["Accept": "application/json", "X-App": "shop/4.2"],
///     providers: [{ ["X-Request-Time": String(Int(Date().timeIntervalSince1970))] }]
/// ))
/// builder.add(headers)                                   // position .headers
/// ```
public struct HeadersMiddleware: Middleware {
    /// A source of fields computed for each request.
    public typealias Provider = @Sendable () async throws -> HTTPFields

    /// Which fields, and whether they replace the request's own.
    public struct Configuration: Sendable {
        /// Fields added to every request.
        public var fields: HTTPFields
        /// Called for each request, in order; their fields are added after ``fields``.
        public var providers: [Provider]
        /// Replace a field the request already has (off: the request's own value wins).
        public var overridesRequest: Bool

        /// Settings with each value given, or its default.
        public init(fields: HTTPFields = [:], providers: [Provider] = [], overridesRequest: Bool = false) {
            self.fields = fields
            self.providers = providers
            self.overridesRequest = overridesRequest
        }

        /// No fields.
        public static let `default` = Configuration()
    }

    public static let defaultPosition = MiddlewarePosition.headers

    /// How it behaves.
    public let configuration: Configuration

    /// The configured fields, checked once: a field their literal left out is this error.
    private let fields: Result<HTTPFields, SluiceError>

    /// One with `configuration`.
    public init(configuration: Configuration = .default) {
        self.configuration = configuration
        self.fields = Result { () throws(SluiceError) in try configuration.fields.validated() }
    }

    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        // A field a literal left out (see `HTTPFields.invalidLiteral`) is an error, not a gap.
        var added = try fields.get()
        for provider in configuration.providers {
            for field in try await provider().validated() { added.set(field) }
        }
        guard !added.isEmpty else { return try await next(request, context) }
        var request = request
        let own = request.headers
        // After a redirect to another origin, fields that carry credentials are left out: the
        // request's policy is made once, and only then.
        let sendsCredentials = request.sendsCredentials
        var policy: Redaction?
        for field in added where configuration.overridesRequest || !own.contains(field.name) {
            if !sendsCredentials {
                let redaction = policy ?? request.privacyPolicy
                policy = redaction
                if redaction.hidesHeader(field.name) { continue }
            }
            request.headers.set(field)
        }
        return try await next(request, context)
    }
}
