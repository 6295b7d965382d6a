import Foundation

extension Client {
    /// The request `endpoint` describes: its method and path joined to the base URL, its query
    /// encoded, its body as JSON, its headers, then its ``Endpoint/configure(_:)``.
    ///
    /// - Throws: `.invalidURL` for a bad path; `.invalidBody` when the body cannot be encoded.
    public func request<E: Endpoint>(for endpoint: E) throws(SluiceError) -> HTTPRequest {
        var request: HTTPRequest
        if let body = endpoint.body {
            request = try jsonRequest(endpoint.method, endpoint.path, body, headers: endpoint.headers)
        } else {
            request = try makeRequest(endpoint.method, endpoint.path, headers: endpoint.headers)
        }
        let pairs = endpoint.query.map { item in
            PercentEncoding.encode(item.name, keeping: .queryItem) + (item.value.map { "=" + PercentEncoding.encode($0, keeping: .queryItem) } ?? "")
        }
        request.url = try URLQuery.appending(pairs.joined(separator: "&"), to: request.url)
        endpoint.configure(&request)
        return request
    }

    /// Sends `endpoint`'s request, validates the response, and decodes it as `E.Response`.
    ///
    /// ```swift
    /// import Sluice
    ///
    /// struct Greeting: Endpoint {
    ///     typealias Response = String
    ///     var path: String { "greeting" }
    /// }
    /// let greeting = try await client.send(Greeting())
    /// ```
    public func send<E: Endpoint>(
        _ endpoint: E, context: RequestContext? = nil, timeout: Duration? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws -> E.Response {
        let response = try validate(try await collected(send(try request(for: endpoint), context: context, timeout: timeout, deadline: deadline)))
        return try endpoint.decode(response, with: self)
    }
}
