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
///   entry at a time, a few at once, each with a deadline, all cancelled when the cache's client
///   goes away; `stale-if-error` and ``CachePolicy/offlineFallback`` serve a stale copy when
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
        /// request's policy (`HTTPRequest.redaction`, the client's) is added to it, and
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
        /// The ``CachePolicy`` of a request that sets none (`HTTPRequest.cachePolicy` unset):
        /// `.useProtocol` by default. `.offlineFallback` makes a whole client answer from a stale
        /// copy when the network fails, as an app that reads offline wants; a request's own
        /// policy still wins.
        public var defaultPolicy: CachePolicy = .useProtocol

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
    /// The background revalidations running (``revalidateInBackground``).
    let revalidating: RevalidationSet
    /// Cancels them when the last copy of this middleware goes; `nil` in the copy a background
    /// task holds.
    var lifetime: RevalidationLifetime?
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

    /// A setting no range holds (NaN), refused at each call.
    private let misconfiguration: SluiceError?

    /// A cache over `store`. The heuristic fraction is held to 0...1 and the background
    /// revalidation timeout to 0...100 years; a fraction that is NaN is `.misconfigured` at each
    /// call.
    public init(store: any CacheStore, configuration: Configuration = .default) {
        self.store = store
        var configuration = configuration
        configuration.backgroundRevalidationTimeout = configuration.backgroundRevalidationTimeout.clampedWait
        misconfiguration =
            configuration.heuristicFraction.isNaN
            ? .notANumber("CacheMiddleware.Configuration.heuristicFraction", expected: "a fraction in 0...1 (0.1 by default)") : nil
        self.configuration = configuration
        revalidating = RevalidationSet()
        lifetime = RevalidationLifetime(revalidating)
        self.strategy = CacheStrategy(
            isShared: configuration.isShared, heuristicFraction: configuration.heuristicFraction, targetedFields: configuration.targetedFields)
    }

    /// - Throws: what the network threw when no stored copy may answer; `.misconfigured` for a
    ///   heuristic fraction that is NaN, before anything is sent.
    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        if let misconfiguration { throw misconfiguration }
        guard configuration.defaultPolicy != .useProtocol, !request.options.contains(CachePolicyKey.self) else {
            return try delivered(try await answer(request, context: context, next: next), to: request)
        }
        var request = request
        request.cachePolicy = configuration.defaultPolicy
        return try delivered(try await answer(request, context: context, next: next), to: request)
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
            guard case .serve(_, let age) = strategy.decide(seen, stored: stored, now: configuration.clock()) else {
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
        case .serve(let stored, let age):
            return Self.answering(range, of: request, stored, with: served(stored, age: age, for: request, source: .cache, directives: directives))
        case .serveStaleAndRevalidate(let stored, let age):
            revalidateInBackground(stored, request: request, seen: seen, key: key, context: context, next: next)
            return Self.answering(range, of: request, stored, with: served(stored, age: age, for: request, source: .cache, directives: directives))
        case .miss:
            throw SluiceError(.cacheMiss, "nothing is stored for \(request) (cache policy returnCacheDontLoad)")
        case .gatewayTimeout:
            var response = HTTPResponse(status: HTTPStatus(code: 504))
            response.request = request
            response.source = .cache
            return response
        case .fetch:
            return Self.missed(
                try await coalesced(request, seen: seen, key: key) {
                    try await fetch(request, seen: seen, key: key, stored: stored, context: context, next: next)
                })
        case .validate(let stored, let conditions):
            let response = try await coalesced(request, seen: seen, key: key) {
                try await validate(request, seen: seen, conditions: conditions, key: key, stored: stored, context: context, next: next)
            }
            // Revalidated (a 304): the stored copy is whole and fresh again, so it answers the range.
            guard response.source == .revalidated, response.status == .ok else { return Self.missed(response) }
            return Self.answering(range, of: request, stored, with: response)
        }
    }

    /// `response` marked as a miss (``CacheResultKey``) when it came from the network after the
    /// store was looked in.
    private static func missed(_ response: HTTPResponse) -> HTTPResponse {
        guard response.source == .network else { return response }
        var missed = response
        missed.attachments[CacheResultKey.self] = "miss"
        return missed
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
}
