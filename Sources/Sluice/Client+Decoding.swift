import Foundation

extension Client {
    /// Decodes `response`'s JSON body as `T` with the configured decoder.
    ///
    /// ```swift
    /// let response = try await client.get("users/42")
    /// let user = try client.decode(User.self, from: response)
    /// ```
    ///
    /// - Throws: `.decodingFailed` whose message names `T`, says where decoding stopped, and shows
    ///   the start of the body; the `DecodingError` is its ``SluiceError/underlying`` and the
    ///   response its ``SluiceError/response``.
    public func decode<T: Decodable>(_ type: T.Type = T.self, from response: HTTPResponse) throws(SluiceError) -> T {
        do {
            return try configuration.decoder.decode(T.self, from: response.body)
        } catch {
            throw SluiceError(
                .decodingFailed,
                "cannot decode \(T.self) from the response body: \(Self.explain(error)); body: \(Self.snippet(of: response.body))",
                underlying: error, stage: .client, response: response
            )
        }
    }

    /// Checks that `response`'s status is in ``Configuration/acceptableStatusCodes``.
    ///
    /// - Throws: `.unacceptableStatus` naming the request and status and showing the start of the
    ///   body; the response is its ``SluiceError/response``.
    @discardableResult
    public func validate(_ response: HTTPResponse) throws(SluiceError) -> HTTPResponse {
        guard configuration.acceptableStatusCodes.contains(response.status.code) else {
            let what = response.request.map { "\($0.method) \($0.url.absoluteString)" } ?? "the request"
            throw SluiceError(
                .unacceptableStatus,
                "\(what) answered \(response.status); accepted: \(configuration.acceptableStatusCodes); body: \(Self.snippet(of: response.body))",
                stage: .client, response: response
            )
        }
        return response
    }

    /// Sends `request`, checks the status, and decodes the body as `T`.
    public func send<T: Decodable>(
        _ request: HTTPRequest, decoding type: T.Type, context: RequestContext? = nil, with extra: [any Middleware] = []
    ) async throws -> T {
        try decode(T.self, from: validate(try await send(request, context: context, with: extra)))
    }

    /// `GET path`, checks the status, and decodes the body as `T`.
    public func get<T: Decodable>(
        _ path: String, as type: T.Type, headers: HTTPFields = [:], with extra: [any Middleware] = []
    ) async throws -> T {
        try await send(try makeRequest(.get, path, headers: headers), decoding: T.self, with: extra)
    }

    /// How many body bytes error messages show.
    static let snippetLimit = 200

    /// The start of `body` for an error message: UTF-8, control characters escaped, cut at
    /// ``snippetLimit`` bytes with the full size said.
    static func snippet(of body: Data) -> String {
        if body.isEmpty { return "(empty)" }
        let head = body.prefix(snippetLimit)
        let text = String(decoding: head, as: UTF8.self)
        var escaped = String(reflecting: text)
        if body.count > snippetLimit { escaped += "… (\(body.count) bytes in all)" }
        return escaped
    }

    static func explain(_ error: any Error) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return keys.isEmpty ? "at the top level" : "at \(keys)"
        }
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "key \(String(reflecting: key.stringValue)) not found \(path(context))"
        case DecodingError.typeMismatch(let type, let context):
            return "expected \(type) \(path(context)): \(context.debugDescription)"
        case DecodingError.valueNotFound(let type, let context):
            return "expected \(type) but found null \(path(context))"
        case DecodingError.dataCorrupted(let context):
            let cause = (context.underlyingError as? NSError)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return "not valid JSON \(path(context)): \(cause ?? context.debugDescription)"
        default:
            return String(describing: error)
        }
    }
}
