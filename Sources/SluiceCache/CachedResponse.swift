import Foundation
import Sluice

/// A stored response, as a ``CacheStore`` keeps it: what was received, when, and for which request.
///
/// ```swift
/// import Foundation
/// import Sluice
/// import SluiceCache
///
/// let entry = CachedResponse(
///     method: "GET", url: "https://api.example.com/items", status: 200,
///     headers: ["Cache-Control": "max-age=60", "ETag": "\"v1\""], body: Data("[]".utf8),
///     requestTime: Date(), responseTime: Date()
/// )
/// try await store.put(entry, for: "GET https://api.example.com/items")
/// ```
public struct CachedResponse: Sendable, Hashable {
    /// The request method the response answered (`GET`, or `POST` when POST caching is on).
    public var method: String
    /// The request URL, absolute, as the key was made from it.
    public var url: String
    /// The status code.
    public var status: Int
    /// The reason phrase the server sent.
    public var reasonPhrase: String?
    /// The response header fields, updated by each 304 that revalidates the entry.
    public var headers: HTTPFields
    /// The body.
    public var body: Data
    /// When the request that got this response was sent (`request_time`, RFC 9111 §4.2.3).
    public var requestTime: Date
    /// When the response was received (`response_time`).
    public var responseTime: Date
    /// For each field the response's `Vary` names (lowercased), the request's value then (nil when
    /// the request had no such field).
    public var varyValues: [String: String?]

    /// A stored response with these parts.
    public init(
        method: String, url: String, status: Int, reasonPhrase: String? = nil, headers: HTTPFields, body: Data,
        requestTime: Date, responseTime: Date, varyValues: [String: String?] = [:]
    ) {
        self.method = method
        self.url = url
        self.status = status
        self.reasonPhrase = reasonPhrase
        self.headers = headers
        self.body = body
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.varyValues = varyValues
    }

    /// Bytes the entry takes: body, header fields and URL.
    public var size: Int {
        body.count + url.utf8.count + headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
    }

    /// The directives of the stored response's `Cache-Control`.
    public var cacheControl: CacheControl { CacheControl(headers) }

    /// The stored response as an `HTTPResponse` (source `.cache`).
    public func response(for request: HTTPRequest) -> HTTPResponse {
        var response = HTTPResponse(
            status: HTTPStatus(code: status, reasonPhrase: reasonPhrase), headers: headers, body: body
        )
        response.request = request
        response.source = .cache
        return response
    }
}
