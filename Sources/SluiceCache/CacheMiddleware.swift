import Foundation
import Sluice

extension SluiceError.Code {
    /// `.returnCacheDontLoad` found nothing stored for the request.
    public static let cacheMiss = SluiceError.Code(rawValue: "cacheMiss")
}

/// An HTTP cache (RFC 9111) with the app policies of ``CachePolicy``, over any ``CacheStore``.
///
/// - Fresh stored responses are served with an `Age` header and `response.source == .cache`.
/// - Stale ones are validated with `If-None-Match` / `If-Modified-Since`; a 304 updates the stored
///   fields and serves the stored body (`.revalidated`).
/// - `stale-while-revalidate` serves the stale copy and revalidates in the background, once per
///   entry at a time; `stale-if-error` and ``CachePolicy/offlineFallback`` serve a stale copy when
///   the network fails or answers 5xx.
/// - A successful POST, PUT, PATCH or DELETE removes the stored response for its URL, and for its
///   `Location` and `Content-Location` on the same host.
/// - HEAD is answered from a stored GET. Other methods pass through.
/// - Identical concurrent GETs that need the network share one fetch, run by the first caller.
/// - The store failing is a miss: the request goes to the network, never fails because of the cache.
///
/// One response is kept per URL: a request whose `Vary` fields differ from the stored one's is a
/// miss, and its response replaces the stored one (as OkHttp does).
///
/// ```swift
/// import Sluice
/// import SluiceCache
/// import SluiceCurl
///
/// let cache = CacheMiddleware(store: MemoryCacheStore())
/// let client = Client(transport: CurlTransport(), middlewares: [cache])
/// var request = HTTPRequest(url: url)
/// request.cachePolicy = .offlineFallback
/// let response = try await client.send(request)
/// response.source        // .network, .cache or .revalidated
/// ```
public struct CacheMiddleware: Middleware {
    /// How the cache behaves.
    public struct Configuration: Sendable {
        /// Follow the shared-cache rules (`s-maxage`, `proxy-revalidate`; no `private` responses,
        /// and responses to requests with `Authorization` only when they allow it).
        public var isShared: Bool
        /// Query parameters left out of the key (timestamps, nonces, signatures).
        public var ignoredQueryItems: Set<String>
        /// The fraction of the time since `Last-Modified` used as a heuristic lifetime.
        public var heuristicFraction: Double
        /// The wall clock the cache reads (injectable for tests).
        public var clock: @Sendable () -> Date
        /// Query parameters whose values never reach the store: in keys and stored URLs they are
        /// replaced by a SHA-256 fingerprint (`token=sha256:9f86d081…`), so two tokens still make
        /// two entries but neither is written to disk. So is a password in the URL's user info.
        /// `Redaction.default` hides `token`, `password`, `secret`, `sign` and `signature`. The
        /// request's policy (``Sluice/HTTPRequest/redaction``, the client's) is added to it, and
        /// the fields either hides are never stored.
        public var redaction: Redaction
        /// A streamed body larger than this is passed on but not stored (8 MiB by default).
        public var maxStreamedBodySize: Int = 8 << 20
        /// Targeted cache-control fields this cache obeys, most specific first (RFC 9213): e.g.
        /// `["CDN-Cache-Control"]` for a CDN-like shared cache. None by default.
        public var targetedFields: [String] = []
        /// Most `stale-while-revalidate` revalidations running in the background at once (4 by
        /// default); a stale copy served while that many run is revalidated by a later call.
        public var maxBackgroundRevalidations: Int = 4
        /// How long one background revalidation may take before it is given up (30 s by default):
        /// it has no caller whose deadline would end it.
        public var backgroundRevalidationTimeout: Duration = .seconds(30)

        /// Settings with each value given, or its default.
        public init(
            isShared: Bool = false, ignoredQueryItems: Set<String> = [], heuristicFraction: Double = 0.1,
            clock: @escaping @Sendable () -> Date = { Date() }, redaction: Redaction = .default
        ) {
            self.isShared = isShared
            self.ignoredQueryItems = ignoredQueryItems
            self.heuristicFraction = heuristicFraction
            self.clock = clock
            self.redaction = redaction
        }

        /// A private cache; the whole URL is the key, secret parameters fingerprinted; 10%
        /// heuristic; the system clock.
        public static let `default` = Configuration()
    }

    public static let defaultPosition = MiddlewarePosition.cache
    public static let readsOptions: [any RequestOptionKey.Type] = [CachePolicyKey.self, CacheTTLKey.self, CachesPOSTKey.self]

    /// Where responses are kept.
    public let store: any CacheStore
    /// How it behaves.
    public let configuration: Configuration
    let strategy: CacheStrategy
    private let revalidating = RevalidationSet()
    private let coalescer = SingleFlight<FetchIdentity, HTTPResponse>()

    /// What makes two concurrent fetches the same one: the key, the fields, the policy, the TTL
    /// and the file the body goes to.
    private struct FetchIdentity: Hashable, Sendable {
        let key: String
        let headers: HTTPFields
        let policy: CachePolicy
        let ttl: Int?
        let file: String?
    }

    /// Requests waiting for an identical fetch to finish. `package`: for tests that must know a
    /// request joined another's fetch.
    package var coalescedWaiters: Int { coalescer.waiterCount }

    /// Revalidations running in the background now. `package`: for tests of the cap.
    package var backgroundRevalidations: Int { revalidating.count }

    /// A cache over `store`.
    public init(store: any CacheStore, configuration: Configuration = .default) {
        self.store = store
        self.configuration = configuration
        self.strategy = CacheStrategy(
            isShared: configuration.isShared, heuristicFraction: configuration.heuristicFraction, targetedFields: configuration.targetedFields)
    }

    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        try delivered(try await answer(request, context: context, next: next), to: request)
    }

    /// A response whose body is in memory (from the store) for a request that asked for its body
    /// in a file (``Sluice/HTTPRequest/responseBodyFile``, as a download does): the body is
    /// written there (0600, atomically, never through a link) and the response points to it.
    ///
    /// - Throws: `.writeFailed` naming the file when it cannot be written.
    private func delivered(_ response: HTTPResponse, to request: HTTPRequest) throws -> HTTPResponse {
        guard let file = request.responseBodyFile, response.bodyFile == nil, request.method != .head else { return response }
        do {
            try PrivateFile.write(response.body, to: file.path)
        } catch {
            throw SluiceError(.writeFailed, "cannot write the cached body to \(file.path): \(error)", response: response)
        }
        var written = response
        written.body = Data()
        written.bodyFile = file
        return written
    }

    private func answer(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        let cachedPOST = request.method == .post && request.cachesPOST && postBody(request) != nil
        guard request.method == .get || request.method == .head || cachedPOST else {
            let response = try await next(request, context)
            if !request.method.isSafe, (200..<400).contains(response.status.code) {
                await invalidate(after: request, response, next: next)
            }
            return response
        }
        // A reload that may store nothing (`no-store` on the request, RFC 9111 §5.2.1.5) neither
        // reads nor writes the store: it goes below as it is, before any key, URL as sent or
        // credential is worked out. A caller's own validators still take the branch below.
        if request.cachePolicy == .reloadIgnoringCache, !cachedPOST, !request.headers.contains("If-None-Match"),
            !request.headers.contains("If-Modified-Since"), CacheControl(request.headers).noStore
        {
            return try await next(request, context)
        }
        // The key and every decision are taken on the request as it will be sent: its URL as the
        // transport writes it (`127.1` is `127.0.0.1`), with the credentials the stages below it
        // will add.
        let sentURL = next.urlAsSent(request.url)
        let key = self.key(for: request, url: sentURL)
        let seen = Self.asSent(request, url: sentURL, context, credentials: await next.credentials(for: request))
        // A Range request (RFC 9110 §14): one range is answered from a fresh complete copy below;
        // several go to the origin, whose 206 is passed on and not stored.
        let range = request.method == .get ? request.headers["Range"].map(ByteRange.parse) : nil
        if case .several? = range { return try await next(request, context) }
        // A caller's own conditional request (RFC 9111 §4.3.2): answered from a fresh stored
        // response, 304 when it matches the caller's validators and the stored response when it
        // does not; anything else goes to the origin as the caller wrote it.
        if request.headers.contains("If-None-Match") || request.headers.contains("If-Modified-Since") {
            guard request.method == .get || request.method == .head, let stored = try? await store.get(key) else {
                return try await next(request, context)
            }
            guard case .serve(let age) = strategy.decide(seen, stored: stored, now: configuration.clock()) else {
                return try await next(request, context)
            }
            if strategy.conditionsMatch(request, stored) { return notModified(stored, age: age, for: request) }
            return served(stored, age: age, for: request, source: .cache)
        }
        // A reload skips the stored copy altogether (not even a stale one when the network fails),
        // so it is not read.
        let stored = request.cachePolicy == .reloadIgnoringCache ? nil : try? await store.get(key)
        let directives = stored.map { strategy.directives(of: $0.headers) }
        var decision = strategy.decide(seen, stored: stored, directives: directives, now: configuration.clock())
        if cachedPOST {
            // A POST is never sent conditionally: a stale copy is replaced, not revalidated.
            switch decision {
            case .validate, .serveStaleAndRevalidate: decision = .fetch
            default: break
            }
        }
        switch decision {
        case .serve(let age):
            return Self.answering(range, of: request, stored!, with: served(stored!, age: age, for: request, source: .cache, directives: directives))
        case .serveStaleAndRevalidate(let age):
            revalidateInBackground(stored!, request: request, seen: seen, key: key, context: context, next: next)
            return Self.answering(range, of: request, stored!, with: served(stored!, age: age, for: request, source: .cache, directives: directives))
        case .miss:
            throw SluiceError(.cacheMiss, "nothing is stored for \(request) (cache policy returnCacheDontLoad)")
        case .gatewayTimeout:
            var response = HTTPResponse(status: HTTPStatus(code: 504))
            response.request = request
            response.source = .cache
            return response
        case .fetch:
            return try await coalesced(request, seen: seen, key: key) {
                try await fetch(request, seen: seen, key: key, stored: stored, context: context, next: next)
            }
        case .validate(let conditions):
            let response = try await coalesced(request, seen: seen, key: key) {
                try await validate(request, seen: seen, conditions: conditions, key: key, stored: stored!, context: context, next: next)
            }
            // Revalidated (a 304): the stored copy is whole and fresh again, so it answers the range.
            guard response.source == .revalidated, response.status == .ok else { return response }
            return Self.answering(range, of: request, stored!, with: response)
        }
    }

    /// Runs `fetch` once for identical concurrent GETs (same key, same header fields, same policy);
    /// other requests run it alone, and so does a reload (`.reloadIgnoringCache`), which asks for a
    /// fetch of its own.
    /// The fields compared are those of the request as sent (`seen`): two identities whose
    /// credentials a stage below adds never share one fetch.
    private func coalesced(
        _ request: HTTPRequest, seen: HTTPRequest, key: String, _ fetch: () async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        // A streamed body has one reader: streaming calls never share a fetch.
        guard request.method != .head, !request.streamsResponseBody, request.cachePolicy != .reloadIgnoringCache else {
            return try await fetch()
        }
        // Callers that want the body in different files do not share one fetch.
        let identity = FetchIdentity(
            key: key, headers: seen.headers, policy: request.cachePolicy, ttl: request.cacheTTL, file: request.responseBodyFile?.path)
        var response = try await coalescer.run(identity, fetch)
        response.request = request
        return response
    }

    /// The key of `request`: the method (HEAD reads GET's) and the URL without ignored query items,
    /// secret parameters fingerprinted (``Configuration/redaction``); a caller-set `Host` field that
    /// names another host than the URL's (the server answers for that host); for a cached POST,
    /// `POST`, the URL and the SHA-256 of the body.
    public func key(for request: HTTPRequest) -> String {
        key(for: request, url: request.url)
    }

    /// The key of `request` sent to `url` (the request's URL as the transport writes it).
    func key(for request: HTTPRequest, url sentURL: URL) -> String {
        var sent = request
        sent.url = sentURL
        var url = keyURL(sent)
        if let host = Self.otherHost(request) { url += " host=" + host }
        if request.method == .post, let body = postBody(request), let digest = SHA256.hex(body) {
            return "POST " + url + " " + digest
        }
        return "GET " + url
    }

    /// The request's `Host` field, lowercased, when it differs from the URL's authority (with the
    /// port when the URL has one); nil when it is absent or the same.
    static func otherHost(_ request: HTTPRequest) -> String? {
        guard let field = request.headers["Host"]?.lowercased(), !field.isEmpty else { return nil }
        let host = request.url.host?.lowercased() ?? ""
        let authority = request.url.port.map { host + ":\($0)" } ?? host
        return field == authority || field == host && request.url.port == nil ? nil : field
    }

    /// The body of a POST that may be cached: in memory, so it can be hashed without being used up.
    private func postBody(_ request: HTTPRequest) -> Data? {
        switch request.body {
        case .empty: return Data()
        case .bytes(let data): return data
        default: return nil
        }
    }

    /// The URL as keys and stored entries show it: without ignored query items or a fragment, and
    /// with secret parameter values and any user-info password replaced by fingerprints.
    func keyURL(_ request: HTTPRequest) -> String {
        var url = request.url.absoluteString
        let redaction = configuration.redaction.adding(request.redaction)
        // One byte scan: a URL with no secret parameter (nearly all) is not parsed.
        let mayHideQuery = redaction.hidesAnyParameter(in: request.url)
        let hasPassword = redaction.isEnabled && request.url.password != nil
        if !configuration.ignoredQueryItems.isEmpty || mayHideQuery || hasPassword,
            var components = URLComponents(string: url)
        {
            if let items = components.percentEncodedQueryItems {
                var kept = items.filter { !configuration.ignoredQueryItems.contains(PercentEncoding.decode($0.name) ?? $0.name) }
                for index in kept.indices where mayHideQuery {
                    if let value = kept[index].value, redaction.hidesQueryParameter(PercentEncoding.decode(kept[index].name) ?? kept[index].name) {
                        kept[index].value = Self.fingerprint(value)
                    }
                }
                components.percentEncodedQueryItems = kept.isEmpty ? nil : kept
            }
            if hasPassword, let password = components.percentEncodedPassword {
                components.percentEncodedPassword = Self.fingerprint(password)
            }
            url = components.string ?? url
        }
        if let fragment = url.utf8.firstIndex(of: UInt8(ascii: "#")) { url = String(url[..<fragment]) }
        return url
    }

    /// `sha256:` and the first 32 hex digits of the SHA-256 of `secret`: distinct secrets stay
    /// distinct keys, and the store never holds the secret itself.
    static func fingerprint(_ secret: String) -> String {
        "sha256:" + (SHA256.hex(Data(secret.utf8)).map { String($0.prefix(32)) } ?? "")
    }

    // MARK: Network

    private func fetch(
        _ request: HTTPRequest, seen: HTTPRequest, key: String, stored: CachedResponse?, context: RequestContext, next: Next
    ) async throws -> HTTPResponse {
        let requestTime = configuration.clock()
        let response: HTTPResponse
        do {
            response = try await next(request, context)
        } catch {
            if let stale = staleCopyOnError(stored, request: request, seen: seen, error: error) { return stale }
            throw error
        }
        if response.status.code >= 500, let stale = staleCopyOnError(stored, request: request, seen: seen, error: nil) { return stale }
        if request.method != .head {
            return await storeIfAllowed(response, for: seen, key: key, requestTime: requestTime)
        }
        return response
    }

    private func validate(
        _ request: HTTPRequest, seen: HTTPRequest, conditions: HTTPFields, key: String, stored: CachedResponse,
        context: RequestContext, next: Next
    ) async throws -> HTTPResponse {
        var conditional = request
        for field in conditions { try conditional.headers.set(name: field.name, value: field.value) }
        let requestTime = configuration.clock()
        let response: HTTPResponse
        do {
            response = try await next(conditional, context)
        } catch {
            if let stale = staleCopyOnError(stored, request: request, seen: seen, error: error) { return stale }
            throw error
        }
        let responseTime = configuration.clock()
        if response.status.code == 304 {
            if strategy.notModified(response, matches: stored) {
                let redaction = configuration.redaction.adding(request.redaction)
                let updated = strategy.updated(
                    stored, with: response, requestTime: requestTime, responseTime: responseTime, redaction: redaction)
                if strategy.directives(of: response.headers).noStore
                    || redaction.secretValues(of: seen, body: true, minimumLength: Self.echoedSecretMinimumLength).occurs(in: updated.headers)
                {
                    // A 304 that says no-store: this caller gets the validated body, and the
                    // store keeps nothing (RFC 9111 §5.2.2.5), so no later call is served it.
                    // Nor is one kept whose fields echo a secret of the request.
                    _ = try? await store.delete(key)
                } else {
                    try? await store.put(updated, for: key)
                }
                let age = strategy.currentAge(of: updated, now: responseTime)
                return served(updated, age: age, for: request, source: .revalidated)
            }
            // A 304 for another representation (RFC 9111 §4.3.3): the stored copy is no good, and
            // the caller, who asked unconditionally, must not see a 304. Ask again, unconditionally.
            _ = try? await store.delete(key)
            return try await fetch(request, seen: seen, key: key, stored: nil, context: context, next: next)
        }
        if response.status.code >= 500, let stale = staleCopyOnError(stored, request: request, seen: seen, error: nil) { return stale }
        if request.method != .head {
            return await storeIfAllowed(response, for: seen, key: key, requestTime: requestTime)
        }
        return response
    }

    /// Stores `response` when the rules allow it. A streamed body is stored once it has been read
    /// to its end (the returned response's stream does that); one cut short, failed, or larger
    /// than ``Configuration/maxStreamedBodySize`` is not stored.
    ///
    /// Nor is an answer that echoes a secret the request carried (its token, a hidden query or
    /// body value, in any spelling a server uses) in a stored field or its body: the caller gets
    /// it, but no store file ever holds the secret. Masking it instead would serve a wrong body.
    /// Values shorter than ``echoedSecretMinimumLength`` are not looked for: a cookie's `true`
    /// or a `pin=1234` would otherwise keep every body that says `true` or `1234` out.
    private func storeIfAllowed(_ response: HTTPResponse, for request: HTTPRequest, key: String, requestTime: Date) async -> HTTPResponse {
        guard response.bodyFile == nil, strategy.mayStore(response, for: request),
            let varyValues = CacheStrategy.varyValues(response.headers, request)
        else { return response }
        let redaction = configuration.redaction.adding(request.redaction)
        let entry = CachedResponse(
            method: request.method.rawValue, url: keyURL(request), status: response.status.code,
            reasonPhrase: response.status.reasonPhrase, headers: strategy.storedFields(of: response, redaction: redaction),
            body: response.body, requestTime: requestTime, responseTime: configuration.clock(), varyValues: varyValues
        )
        let secrets = redaction.secretValues(of: request, body: true, minimumLength: Self.echoedSecretMinimumLength)
        if secrets.occurs(in: entry.headers) { return response }
        guard let stream = response.bodyStream else {
            if !secrets.occurs(in: entry.body) { try? await store.put(entry, for: key) }
            return response
        }
        let collected = Locked<Data?>(Data())
        let limit = configuration.maxStreamedBodySize
        let store = self.store
        var streamed = response
        streamed.bodyStream = stream.map(
            { chunk in
                collected.withLock { body in
                    guard let kept = body else { return }
                    body = kept.count + chunk.count <= limit ? kept + chunk : nil
                }
                return chunk
            },
            end: { error in
                guard error == nil, let body = collected.withLock({ $0 }), !secrets.occurs(in: body) else { return nil }
                var complete = entry
                complete.body = body
                try? await store.put(complete, for: key)
                return nil
            })
        return streamed
    }

    /// The shortest secret value whose echo keeps an answer out of the store: as long as a
    /// short password, longer than the words and numbers any body is full of.
    static let echoedSecretMinimumLength = 8

    /// `request` as it will really be sent, for matching and recording `Vary` and for the rules
    /// of storing: its URL as the transport writes it, the `Cookie` field it will carry (its own
    /// and the transport's jar's), and for each field a stage below will set with credentials
    /// (`CredentialSource`) a stand-in naming whose they are (the SHA-256 of the
    /// identity, or a value no other request has when the stage cannot tell), so an answer that
    /// varies on `Authorization` is never served to another identity. A request that will carry
    /// credentials is marked so, for the shared-cache rule of RFC 9111 §3.5.
    static func asSent(_ request: HTTPRequest, url: URL, _ context: RequestContext, credentials: [AddedCredentials]) -> HTTPRequest {
        var seen = request
        seen.url = url
        if context.cookieSource != nil, let cookie = context.cookieField(for: seen), cookie != request.headers["Cookie"] {
            try? seen.headers.set(name: "Cookie", value: cookie)
        }
        guard !credentials.isEmpty else { return seen }
        seen.options[CredentialsAddedBelowKey.self] = true
        for added in credentials {
            let standIn = "credentials " + (added.identity.map(fingerprint) ?? "unknown-" + UUID().uuidString)
            for name in added.fields {
                try? seen.headers.set(name: name, value: standIn)
                seen.credentialFields.insert(name)
            }
        }
        return seen
    }

    /// A stale stored copy instead of a failure, when `stale-if-error` or the policy allows it.
    /// Cancellation is never covered up.
    private func staleCopyOnError(_ stored: CachedResponse?, request: HTTPRequest, seen: HTTPRequest, error: (any Error)?) -> HTTPResponse? {
        guard let stored, !(error is CancellationError), strategy.matchesVary(stored, seen) else { return nil }
        let now = configuration.clock()
        let age = strategy.currentAge(of: stored, now: now)
        if request.cachePolicy == .offlineFallback {
            return served(stored, age: age, for: request, source: .cache)
        }
        let staleness = age - strategy.freshnessLifetime(of: stored, ttl: request.cacheTTL)
        let window = CacheStrategy.requestDirectives(request).staleIfError ?? strategy.directives(of: stored.headers).staleIfError
        guard let window, staleness <= window else { return nil }
        return served(stored, age: age, for: request, source: .cache)
    }

    // MARK: Serving

    private func served(
        _ entry: CachedResponse, age: Int, for request: HTTPRequest, source: ResponseSource, directives: CacheControl? = nil
    ) -> HTTPResponse {
        var response = entry.response(for: request)
        response.source = source
        try? response.headers.set(name: "Age", value: String(age))
        if source == .cache {
            // Fields a qualified no-cache names are not served without revalidation.
            for name in (directives ?? strategy.directives(of: entry.headers)).noCacheFields { response.headers.remove(name: name) }
        }
        if request.method == .head { response.body = Data() }
        return response
    }

    /// `response`, the whole stored representation, cut to the request's single range when it asked
    /// for one and its `If-Range` holds; as it is otherwise.
    static func answering(_ range: ByteRange?, of request: HTTPRequest, _ stored: CachedResponse, with response: HTTPResponse) -> HTTPResponse {
        guard case .one(let wanted)? = range, ifRangeHolds(request, stored) else { return response }
        return partial(response, wanted)
    }

    /// `response` cut to `range` (RFC 9110 §14.4, §15.3.7): a 206 with its `Content-Range`, or a
    /// 416 with `Content-Range: bytes */length` when the range starts past the end.
    static func partial(_ response: HTTPResponse, _ range: ByteRange.Bounds) -> HTTPResponse {
        let length = response.body.count
        var partial = response
        partial.headers.remove(name: "Content-Length")
        guard let (first, last) = range.resolved(length: length) else {
            partial.status = HTTPStatus(code: 416)
            partial.body = Data()
            try? partial.headers.set(name: "Content-Range", value: "bytes */\(length)")
            return partial
        }
        partial.status = HTTPStatus(code: 206)
        partial.body = response.body.subdata(in: (response.body.startIndex + first)..<(response.body.startIndex + last + 1))
        try? partial.headers.set(name: "Content-Range", value: "bytes \(first)-\(last)/\(length)")
        return partial
    }

    /// Whether a request's `If-Range` (if any) holds for `stored`, so its range applies (RFC 9110
    /// §13.1.5): a strong entity tag equal to the stored `ETag`, or a date equal to its
    /// `Last-Modified`. When it does not, the whole response is the answer.
    static func ifRangeHolds(_ request: HTTPRequest, _ stored: CachedResponse) -> Bool {
        guard let condition = request.headers["If-Range"]?.trimmingOptionalWhitespace() else { return true }
        if condition.hasPrefix("\"") { return stored.headers["ETag"] == condition }
        guard let date = HTTPDate.parse(condition), let modified = stored.headers["Last-Modified"].flatMap(HTTPDate.parse) else { return false }
        return date == modified
    }

    /// A 304 for `request` from `stored`: the fields RFC 9110 §15.4.5 lists (validators,
    /// `Cache-Control`, `Content-Location`, `Date`, `Expires`, `Vary`) and `Age`, no body.
    private func notModified(_ stored: CachedResponse, age: Int, for request: HTTPRequest) -> HTTPResponse {
        var headers = HTTPFields()
        for name in ["Cache-Control", "Content-Location", "Date", "ETag", "Expires", "Last-Modified", "Vary"] {
            for value in stored.headers.values(for: name) { try? headers.append(name: name, value: value) }
        }
        try? headers.set(name: "Age", value: String(age))
        var response = HTTPResponse(status: HTTPStatus(code: 304), headers: headers)
        response.request = request
        response.source = .cache
        return response
    }

    private func revalidateInBackground(
        _ stored: CachedResponse, request: HTTPRequest, seen: HTTPRequest, key: String, context: RequestContext, next: Next
    ) {
        guard revalidating.begin(key, limit: configuration.maxBackgroundRevalidations) else { return }
        let conditions = strategy.conditionalFields(for: stored)
        var background = context
        background.deadline = .now + configuration.backgroundRevalidationTimeout
        Task { [self] in
            defer { revalidating.end(key) }
            var conditional = request
            conditional.cachePolicy = .useProtocol
            var seenConditional = seen
            seenConditional.cachePolicy = .useProtocol
            _ = try? await validate(
                conditional, seen: seenConditional, conditions: conditions, key: key, stored: stored, context: background, next: next)
        }
    }

    // MARK: Invalidation

    /// After a successful unsafe request: its URL, and its `Location` and `Content-Location` on
    /// the same origin (scheme, host and port, as the transport writes them), are no longer
    /// served from the cache (RFC 9111 §4.4). Another origin's entries are never touched.
    private func invalidate(after request: HTTPRequest, _ response: HTTPResponse, next: Next) async {
        let sentURL = next.urlAsSent(request.url)
        var targets = [sentURL]
        for name in ["Location", "Content-Location"] {
            if let value = response.headers[name], let url = URL(string: value, relativeTo: request.url)?.absoluteURL {
                let target = next.urlAsSent(url)
                if Self.origin(of: target) == Self.origin(of: sentURL) { targets.append(target) }
            }
        }
        var stored = request
        stored.method = .get
        for url in targets {
            _ = try? await store.delete(key(for: stored, url: url))
        }
    }

    /// Scheme, host and port (the scheme's default when the URL names none), lowercased.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return scheme + "://" + (url.host?.lowercased() ?? "") + ":" + String(port)
    }
}

/// The keys being revalidated in the background, so each is revalidated once at a time and no
/// more than a limit at once.
final class RevalidationSet: Sendable {
    private let keys = Locked(Set<String>())

    /// Whether `key` may start: it is not running already, and fewer than `limit` are.
    func begin(_ key: String, limit: Int) -> Bool {
        keys.withLock { keys in keys.count < limit && keys.insert(key).inserted }
    }

    /// How many run now.
    var count: Int { keys.withLock { $0.count } }
    func end(_ key: String) { keys.withLock { _ = $0.remove(key) } }
}
