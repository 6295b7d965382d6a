import Foundation
import Sluice

/// Encodes a request's parameters with its own settings: adds `HTTPRequest.queryParameters` to
/// the query and sends `HTTPRequest.formParameters` as a form body. Without it, the pipeline
/// encodes query parameters with `ParameterEncoder.default`; a relative URL is joined to
/// the client's base URL (`Client.Configuration.baseURL`), the only one.
///
/// ```swift
/// import Foundation
/// import Sluice
/// import SluiceURLEncoding
///
/// let encoding = URLEncodingMiddleware(configuration: .init(encoder: .init(arrayStyle: .brackets, sortsKeys: true)))
/// var request = HTTPRequest(url: URL(string: "https://api.example.com/v1/search")!)
/// request.queryParameters = ["q": "café", "tags": ["a", "b"]]
/// // → https://api.example.com/v1/search?q=caf%C3%A9&tags%5B%5D=a&tags%5B%5D=b
/// ```
public struct URLEncodingMiddleware: Middleware {
    /// How parameters are encoded.
    public struct Configuration: Sendable {
        /// How parameters are encoded.
        public var encoder: ParameterEncoder

        /// Settings with each value given, or its default.
        public init(encoder: ParameterEncoder = ParameterEncoder()) {
            self.encoder = encoder
        }

        /// Arrays as `a=1&a=2`; parameters in the order given.
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
