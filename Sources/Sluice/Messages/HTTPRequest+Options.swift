import Foundation

// The core's per-request options, each key next to its property: what the client, the pipeline,
// the redirect follower and every transport read. A module's own options are in its
// HTTPRequest+Options.swift.

/// The per-request option behind ``HTTPRequest/queryParameters``.
package enum QueryParametersKey: RequestOptionKey {
    package static let defaultValue = ParameterValue.dictionary([])
}

extension HTTPRequest {
    /// Parameters added to the URL's query, in order: `["q": "café", "page": 2]`. A
    /// `URLEncodingMiddleware` in the chain encodes them with its own settings (array style,
    /// sorting); without one, ``Pipeline`` encodes them with ``ParameterEncoder/default`` before
    /// the first middleware runs.
    public var queryParameters: ParameterValue {
        get { options[QueryParametersKey.self] }
        set { options[QueryParametersKey.self] = newValue }
    }
}

/// The value behind a body set with ``HTTPRequest/setJSONBody(_:)``, so a ``Client`` can encode
/// it with its own encoder.
package enum JSONBodyKey: RequestOptionKey {
    /// Encodes the value with a given encoder.
    package struct Encoding: Sendable {
        let encode: @Sendable (JSONEncoder) throws -> Data
        init(_ encode: @escaping @Sendable (JSONEncoder) throws -> Data) { self.encode = encode }
    }

    package static let defaultValue: Encoding? = nil
}

extension HTTPRequest {
    /// Sets the body to `value` as JSON, with `Content-Type: application/json`. Sent through a
    /// ``Client``, the body is encoded again with the client's configured encoder
    /// (``Client/Configuration/encoder``), so every JSON body a client sends is encoded one way;
    /// through a bare ``Pipeline`` it stays as a default `JSONEncoder` wrote it.
    ///
    /// ```swift
    /// import Sluice
    ///
    /// var request = HTTPRequest(method: .post, url: url)
    /// try request.setJSONBody(NewUser(name: "Ada"))
    /// ```
    ///
    /// - Throws: `.invalidBody` naming the value that could not be encoded.
    public mutating func setJSONBody<T: Encodable & Sendable>(_ value: T) throws(SluiceError) {
        try setJSONBody(value, encoder: JSONEncoder())
        options[JSONBodyKey.self] = JSONBodyKey.Encoding { encoder in try encoder.encode(value) }
    }

    /// Sets the body to `value` as JSON encoded by `encoder`, with `Content-Type:
    /// application/json`; no client encodes it again. A value that is not `Sendable` (which a
    /// client could not keep to encode later) is set this way.
    ///
    /// - Throws: `.invalidBody` naming the value that could not be encoded.
    public mutating func setJSONBody<T: Encodable>(_ value: T, encoder: JSONEncoder) throws(SluiceError) {
        do {
            body = .bytes(try encoder.encode(value))
        } catch {
            throw SluiceError(.invalidBody, "cannot encode \(T.self) as JSON: \(error)", underlying: error)
        }
        try headers.set(name: "Content-Type", value: "application/json")
        options.remove(JSONBodyKey.self)
    }
}

/// The per-request option behind ``HTTPRequest/priority``.
package enum RequestPriorityKey: RequestOptionKey {
    package static let defaultValue = RequestPriority.normal
}

extension HTTPRequest {
    /// The request's place in the client's queue; ``RequestPriority/normal`` by default.
    public var priority: RequestPriority {
        get { options[RequestPriorityKey.self] }
        set { options[RequestPriorityKey.self] = newValue }
    }
}

/// The per-request option that labels a request for ``Client`` management: cancel every request
/// with a tag, or ask whether all of them have finished.
package enum RequestTagsKey: RequestOptionKey {
    package static let defaultValue: Set<String> = []
}

extension HTTPRequest {
    /// Labels for ``Client/cancel(tag:)`` and ``Client/isFinished(tags:)``; none by default.
    public var tags: Set<String> {
        get { options[RequestTagsKey.self] }
        set { options[RequestTagsKey.self] = newValue }
    }
}

/// The per-request option that names the operation a call performs (`getUser`, an OpenAPI
/// `operationId`), so that logs, metrics and spans can say which one it was. Middleware read it;
/// nothing requires one to.
package enum OperationNameKey: RequestOptionKey {
    package static let defaultValue: String? = nil
}

extension HTTPRequest {
    /// The name of the operation this call performs, for logs, metrics and spans: an OpenAPI
    /// `operationId` (`SluiceOpenAPI` sets it for each generated call) or a name of yours. `nil`
    /// by default.
    ///
    /// ```swift
    /// import Sluice
    ///
    /// var request = try client.makeRequest(.get, "users/42")
    /// request.operationName = "getUser"   // logged as "GET …/users/42 (getUser) -> 200 OK, …"
    /// ```
    public var operationName: String? {
        get { options[OperationNameKey.self] }
        set { options[OperationNameKey.self] = newValue }
    }
}

/// The per-request option that asks the transport to write the response body to a file instead
/// of memory: `request.responseBodyFile = url`. The transport streams the body there as it
/// arrives (memory stays bounded for any size), leaves ``HTTPResponse/body`` empty and sets
/// ``HTTPResponse/bodyFile``.
///
/// It is a core option, not one module's, because every transport must honour it.
package enum ResponseBodyFileKey: RequestOptionKey {
    package static let defaultValue: URL? = nil
}

extension HTTPRequest {
    /// Where the transport writes the response body; `nil` (the default) keeps it in memory.
    public var responseBodyFile: URL? {
        get { options[ResponseBodyFileKey.self] }
        set { options[ResponseBodyFileKey.self] = newValue }
    }
}

/// The per-request switch behind ``HTTPRequest/streamsResponseBody``, read by the transport.
package enum StreamsResponseBodyKey: RequestOptionKey {
    package static let defaultValue = false
    package static let reader: OptionReader? = OptionReader(
        property: "request.streamsResponseBody", middleware: "a transport that streams bodies, such as CurlTransport", module: "SluiceCurl")
}

extension HTTPRequest {
    /// Whether the transport hands the response back as soon as its head arrives, with the body
    /// in ``HTTPResponse/bodyStream``. ``Client/stream(_:context:timeout:deadline:)`` sets it.
    public var streamsResponseBody: Bool {
        get { options[StreamsResponseBodyKey.self] }
        set { options[StreamsResponseBodyKey.self] = newValue }
    }
}

/// The per-request redirect policy behind ``HTTPRequest/redirectPolicy``; `nil` uses the
/// ``RedirectMiddleware``'s configuration.
package enum RedirectPolicyKey: RequestOptionKey {
    package static let defaultValue: RedirectPolicy? = nil
    package static let reader: OptionReader? = OptionReader(property: "request.redirectPolicy", middleware: "RedirectMiddleware", module: "Sluice")
}

extension HTTPRequest {
    /// Overrides the ``RedirectMiddleware``'s policy for this request.
    public var redirectPolicy: RedirectPolicy? {
        get { options[RedirectPolicyKey.self] }
        set { options[RedirectPolicyKey.self] = newValue }
    }
}

/// The per-request switch behind ``HTTPRequest/sendsCredentials``.
package enum SendsCredentialsKey: RequestOptionKey {
    package static let defaultValue = true
}

extension HTTPRequest {
    /// Whether middleware may add credentials (tokens, signatures, API keys) to this request.
    /// ``RedirectMiddleware`` turns it off for the rest of the call once a redirect leaves the
    /// origin (scheme, host and port) the call started at; signing and auth middleware then add
    /// nothing, so another host never receives them.
    public var sendsCredentials: Bool {
        get { options[SendsCredentialsKey.self] }
        set { options[SendsCredentialsKey.self] = newValue }
    }
}

/// The per-request set behind ``HTTPRequest/credentialFields``.
package enum CredentialFieldsKey: RequestOptionKey {
    package static let defaultValue: Set<String> = []
}

extension HTTPRequest {
    /// The names (lowercase) of header fields a middleware added that carry credentials.
    /// ``RedirectMiddleware`` removes them, with `Authorization`, `Cookie`, `Proxy-Authorization`
    /// and the other fields ``Redaction/default`` hides, when a redirect leaves the origin.
    public var credentialFields: Set<String> {
        get { options[CredentialFieldsKey.self] }
        set { options[CredentialFieldsKey.self] = newValue }
    }
}
