import Foundation
import Sluice

/// Builds the final URL and body of a request: joins a base URL and a relative path (a slash on
/// either side, both or neither gives one slash), adds
/// `HTTPRequest.queryParameters` to the query, and sends
/// `HTTPRequest.formParameters` as a form body. Absolute URLs pass through unchanged.
///
/// ```swift
/// import Foundation
/// import Sluice
/// import SluiceURLEncoding
///
/// let encoding = URLEncodingMiddleware(configuration: .init(
///     baseURL: URL(string: "https://api.example.com/v1/"), encoder: .init(arrayStyle: .brackets, sortsKeys: true)
/// ))
/// var request = HTTPRequest(url: URL(string: "/search")!)      // relative: joined with the base
/// request.queryParameters = ["q": "café", "tags": ["a", "b"]]
/// // → https://api.example.com/v1/search?q=caf%C3%A9&tags%5B%5D=a&tags%5B%5D=b
/// ```
public struct URLEncodingMiddleware: Middleware {
    /// The base URL and how parameters are encoded.
    public struct Configuration: Sendable {
        /// Joined with relative request URLs; `nil` leaves them relative (the transport refuses them).
        public var baseURL: URL?
        /// How parameters are encoded.
        public var encoder: ParameterEncoder

        /// Settings with each value given, or its default.
        public init(baseURL: URL? = nil, encoder: ParameterEncoder = ParameterEncoder()) {
            self.baseURL = baseURL
            self.encoder = encoder
        }

        /// No base URL; arrays as `a=1&a=2`; parameters in the order given.
        public static let `default` = Configuration()
    }

    public static let defaultPosition = MiddlewarePosition.urlEncoding
    public static let readsOptions: [any RequestOptionKey.Type] = [QueryParametersKey.self, FormParametersKey.self]

    /// How it behaves.
    public let configuration: Configuration

    /// One with `configuration`.
    public init(configuration: Configuration = .default) {
        self.configuration = configuration
    }

    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        var request = request
        if request.url.scheme == nil, let base = configuration.baseURL {
            request.url = try Client.join(base: base, path: request.url.relativeString)
        }
        if case .dictionary(let pairs) = request.queryParameters, !pairs.isEmpty {
            request.url = try URLQuery.appending(configuration.encoder.query(pairs), to: request.url)
        }
        if case .dictionary(let pairs) = request.formParameters, !pairs.isEmpty {
            request.body = .bytes(configuration.encoder.form(pairs))
            try request.headers.set(name: "Content-Type", value: "application/x-www-form-urlencoded")
        }
        return try await next(request, context)
    }
}
