import Foundation

/// The core's own stages: what every request goes through before the first middleware sees it,
/// whichever door it came in by (a verb, `Client.send`, an ``Endpoint``, a generated client,
/// ``Pipeline/send(_:context:)``, a ``ChainHandle``'s replay). There is one of these per pipeline
/// and no other code path, so the same request leaves as the same bytes by every door.
///
/// They run in the order of ``Step``, outside every ``MiddlewarePosition``: a middleware, even the
/// outermost, sees an absolute URL, the policy it must keep, the body as sent and no option that
/// nothing reads. Redirects are not one of them: they are a middleware
/// (``MiddlewarePosition/redirects``) that every pipeline has (see ``Pipeline``).
package struct RequestPreparation: Sendable {
    /// The stages, in the order they run; each says why it is there.
    package enum Step: CaseIterable, Sendable {
        /// A relative URL is joined to the base URL by ``URLJoin``: the client's (a bare pipeline
        /// has none, so a relative URL is `.invalidURL` there, as on a client without one).
        case baseURL
        /// The request is held to the client's privacy policy, plus what it adds of its own: every
        /// stage and error message below hides the same secrets.
        case privacy
        /// A field of the request's dictionary literal that was invalid fails here, before anything
        /// is sent.
        case fields
        /// A body set by ``HTTPRequest/setJSONBody(_:)`` is encoded by the client's encoder
        /// (`JSONEncoder()` in a bare pipeline).
        case jsonBody
        /// The caller's own `Content-Length` and `Transfer-Encoding` are checked against the body and
        /// removed (``HTTPRequest/withFramingFromBody()``): framing is the transport's, from the
        /// body as sent after every middleware that changes it (THREATS §17).
        case framing
        /// An option nothing in the chain reads fails here (`.misconfigured`), naming the
        /// middleware that would read it.
        case options
        /// ``HTTPRequest/queryParameters`` are encoded by ``ParameterEncoder/default`` unless a
        /// middleware of the chain encodes them (`URLEncodingMiddleware`, which reads the option).
        case query
    }

    /// Joined to a relative URL; `nil`: a relative URL is refused.
    let baseURL: URL?
    /// The client's privacy policy.
    let redaction: Redaction
    /// Encodes a JSON body set by value.
    let encoder: JSONEncoder
    /// The option keys some stage reads: a handful, searched in order (cheaper than hashing).
    let readOptions: [ObjectIdentifier]
    /// Whether a middleware encodes ``HTTPRequest/queryParameters`` (else ``Step/query`` does).
    let encodesQuery: Bool
    /// Whether ``redaction`` is ``Redaction/default``: a request under the default policy too
    /// then needs nothing done for ``Step/privacy`` (the common call: no work on its path).
    let isDefaultPolicy: Bool

    /// Stages for a chain whose middleware and transport read `readOptions`.
    init(baseURL: URL?, redaction: Redaction, encoder: JSONEncoder, readOptions: [ObjectIdentifier]) {
        self.baseURL = baseURL
        self.redaction = redaction
        self.encoder = encoder
        self.readOptions = readOptions
        encodesQuery = readOptions.contains(ObjectIdentifier(QueryParametersKey.self))
        isDefaultPolicy = redaction.isSame(as: .default)
    }

    /// These stages for a chain that reads `readOptions` as well (extra middleware in front).
    func reading(_ more: [ObjectIdentifier]) -> RequestPreparation {
        let added = more.filter { !readOptions.contains($0) }
        guard !added.isEmpty else { return self }
        return RequestPreparation(baseURL: baseURL, redaction: redaction, encoder: encoder, readOptions: readOptions + added)
    }

    /// `request` through every ``Step``, in order.
    ///
    /// - Throws: `.invalidURL` (``Step/baseURL``), `.invalidBody` (``Step/jsonBody``),
    ///   `.invalidHeader` (``Step/fields``, ``Step/framing``), `.misconfigured` (``Step/options``), `.invalidURL`
    ///   (``Step/query``): each before anything is sent.
    package func prepare(_ request: HTTPRequest) throws(SluiceError) -> HTTPRequest {
        // A scan of the URL's first bytes, not a parse: the same answer as `url.scheme != nil`.
        let isAbsolute = URLJoin.startsWithScheme(request.urlText)
        let isUnderPolicy = isDefaultPolicy && request.redaction.isSame(as: redaction)
        // The common call (an absolute URL, the default policy, no option): nothing to change,
        // so the request is not copied.
        if isAbsolute, isUnderPolicy, request.options.count == 0 {
            try request.headers.validated()
            return request.carriesFramingFields ? try request.withFramingFromBody() : request
        }
        var request = request
        if !isAbsolute { request.url = try URLJoin.join(request.url.relativeString, to: baseURL) }
        if !isUnderPolicy { request = redaction.applied(to: request) }
        try request.headers.validated()
        if request.options.count > 0, let encoding = request.options[JSONBodyKey.self] {
            do {
                request.body = .bytes(try encoding.encode(encoder))
            } catch {
                throw SluiceError(.invalidBody, "the JSON body could not be encoded: \(error)", underlying: error, stage: .client)
            }
            request.options.remove(JSONBodyKey.self)
        }
        if request.carriesFramingFields { request = try request.withFramingFromBody() }
        guard request.options.count > 0 else { return request }
        for stored in request.options.storage.indices {
            let key = request.options.storage[stored].key
            guard let reader = key.reader, !readOptions.contains(ObjectIdentifier(key)) else { continue }
            throw SluiceError(
                .misconfigured,
                "\(reader.property) is set on \(request), but nothing in this chain reads it: add \(reader.middleware) "
                    + "(from \(reader.module)) to the client"
            )
        }
        guard !encodesQuery, case .dictionary(let pairs) = request.queryParameters, !pairs.isEmpty else { return request }
        request.url = try URLQuery.appending(ParameterEncoder.default.query(pairs), to: request.url)
        request.options.remove(QueryParametersKey.self)
        return request
    }
}
