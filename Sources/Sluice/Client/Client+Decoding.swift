import Foundation

extension Client {
    /// Decodes `response`'s JSON body as `T` with the configured decoder.
    ///
    /// ```swift
    /// import Sluice
    ///
    /// let response = try await client.get("users/42")
    /// let user = try client.decode(User.self, from: response)
    /// ```
    ///
    /// - Throws: `.decodingFailed` whose message names `T`, says where decoding stopped, and shows
    ///   the start of the body (secrets hidden); the `DecodingError` is its
    ///   ``SluiceError/underlying`` and the response its ``SluiceError/response``.
    public func decode<T: Decodable>(_ type: T.Type = T.self, from response: HTTPResponse) throws(SluiceError) -> T {
        try JSONResponseDecoder<T>(decoder: configuration.decoder).decode(response)
    }

    /// Checks that `response`'s status is in ``Configuration/acceptableStatusCodes`` and its media
    /// type in ``Configuration/acceptableContentTypes``.
    ///
    /// - Throws: `.unacceptableStatus` or `.unacceptableContentType`, naming the request, the
    ///   status and the type, and showing the start of the body with secrets hidden; the response
    ///   is the error's ``SluiceError/response``.
    @discardableResult
    public func validate(_ response: HTTPResponse) throws(SluiceError) -> HTTPResponse {
        let what = response.request.map { "\($0)" } ?? "the request"
        let contentType = response.headers["Content-Type"]
        try checkStatus(response)
        if let acceptable = configuration.acceptableContentTypes, !Self.accepts(response, acceptable) {
            let named = contentType.map { "Content-Type \(String(reflecting: $0))" } ?? "no Content-Type"
            throw SluiceError(
                .unacceptableContentType,
                "\(what) answered \(response.status) with \(named); accepted: \(acceptable.joined(separator: ", ")); body: "
                    + configuration.redaction.snippet(of: response.body, in: response),
                stage: .client, response: response
            )
        }
        return response
    }

    /// `response` when its status is in ``Configuration/acceptableStatusCodes``: what every verb
    /// checks, with or without `as:`.
    ///
    /// - Throws: `.unacceptableStatus` naming the request and the status, showing the start of
    ///   the body with secrets hidden, with a problem document read into ``SluiceError/problem``;
    ///   the response is the error's ``SluiceError/response``.
    @discardableResult
    package func checkStatus(_ response: HTTPResponse) throws(SluiceError) -> HTTPResponse {
        guard !configuration.acceptableStatusCodes.contains(response.status.code) else { return response }
        let what = response.request.map { "\($0)" } ?? "the request"
        var error = SluiceError(
            .unacceptableStatus,
            "\(what) answered \(response.status); accepted: \(configuration.acceptableStatusCodes); body: "
                + configuration.redaction.snippet(of: response.body, in: response),
            stage: .client, response: response
        )
        if ProblemDetails.isProblem(contentType: response.headers["Content-Type"]) { error.problem = ProblemDetails(json: response.body) }
        throw error
    }

    /// Whether the response's media type matches one of `acceptable` (`type/subtype`, `type/*`,
    /// `*/*`). A structured suffix (RFC 6838 §4.2.8) counts as its base type: `+json` wherever
    /// `application/json` is accepted, `+xml` wherever `application/xml` or `text/xml` is. A
    /// response with no `Content-Type` passes only when it has no body.
    static func accepts(_ response: HTTPResponse, _ acceptable: [String]) -> Bool {
        guard let contentType = response.headers["Content-Type"] else {
            return response.body.isEmpty && response.bodyFile == nil
        }
        let mediaType =
            contentType.split(separator: ";", maxSplits: 1).first.map {
                $0.trimmingOptionalWhitespace().lowercased()
            } ?? ""
        let (type, subtype) = split(mediaType)
        let suffix = subtype.lastIndex(of: "+").map { String(subtype[subtype.index(after: $0)...]) }
        return acceptable.contains { pattern in
            let pattern = pattern.lowercased()
            if pattern == "*/*" || pattern == mediaType { return true }
            let (patternType, patternSubtype) = split(pattern)
            if patternSubtype == "*" && patternType == type { return true }
            switch suffix {
            case "json": return pattern == "application/json"
            case "xml": return pattern == "application/xml" || pattern == "text/xml"
            default: return false
            }
        }
    }

    private static func split(_ mediaType: String) -> (String, String) {
        let parts = mediaType.split(separator: "/", maxSplits: 1).map(String.init)
        return (parts.first ?? "", parts.count > 1 ? parts[1] : "")
    }

    /// Sends `request`, validates the response, and decodes it with `decoder`.
    ///
    /// ```swift
    /// import Sluice
    ///
    /// let text = try await client.send(request, decoder: StringResponseDecoder())
    /// ```
    ///
    /// - Throws: `.bodyTooLarge` for a body past ``Configuration/maxResponseBodySize``, before the
    ///   decoder sees it.
    public func send<Decoder: ResponseDecoder>(
        _ request: HTTPRequest, decoder: Decoder, context: RequestContext? = nil, timeout: Duration? = nil,
        deadline: ContinuousClock.Instant? = nil
    ) async throws -> Decoder.Output {
        try decoder.decode(validate(try await collected(send(request, context: context, timeout: timeout, deadline: deadline))))
    }

    /// Sends `request`, validates the response, and decodes the body as `T`; `timeout` and
    /// `deadline` as ``send(_:context:timeout:deadline:with:)`` takes them.
    ///
    /// - Throws: `.bodyTooLarge` for a body past ``Configuration/maxResponseBodySize``, before it
    ///   is decoded.
    public func send<T: Decodable>(
        _ request: HTTPRequest, decoding type: T.Type, context: RequestContext? = nil, timeout: Duration? = nil,
        deadline: ContinuousClock.Instant? = nil
    ) async throws -> T {
        try decode(T.self, from: validate(try await collected(send(request, context: context, timeout: timeout, deadline: deadline))))
    }

    /// `response` with its whole body in memory, within ``Configuration/maxResponseBodySize``: a
    /// streamed body is read to its end (stopped at once past the limit), a buffered one is
    /// checked, whatever transport made it.
    ///
    /// - Throws: `.bodyTooLarge` naming the request and the setting.
    package func collected(_ response: HTTPResponse) async throws -> HTTPResponse {
        let limit = max(0, configuration.maxResponseBodySize)
        var response = response
        if let stream = response.bodyStream {
            response.bodyStream = nil
            var body = response.body
            while let chunk = try await stream.next() {
                guard body.count + chunk.count <= limit else { throw Self.tooLarge(response, limit: limit) }
                body.append(chunk)
            }
            response.body = body
        } else if response.body.count > limit {
            throw Self.tooLarge(response, limit: limit)
        }
        return response
    }

    /// The error for a body past `limit`, naming the request and the setting.
    package static func tooLarge(_ response: HTTPResponse, limit: Int) -> SluiceError {
        let what = response.request.map { "\($0)" } ?? "the request"
        return SluiceError(
            .bodyTooLarge, "the response body of \(what) is larger than the limit of \(limit) bytes (Client.Configuration.maxResponseBodySize)",
            stage: .client)
    }
}
