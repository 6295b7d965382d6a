import Foundation
import Sluice

/// RFC 9111's decisions as pure functions, apart from any storage or network: whether a response
/// may be stored, how fresh a stored one is, and what to do with a request given what is stored.
///
/// ```swift
/// import Foundation
/// import SluiceCache
///
/// let strategy = CacheStrategy(isShared: false)
/// let entry = try await store.get("GET https://example.com/feed")
/// switch strategy.decide(request, stored: entry, now: Date()) {
/// case .serve(let age): print("fresh enough at \(age) s: answer from the cache")
/// case .validate(let conditions): print("ask again with \(conditions)")   // If-None-Match / If-Modified-Since
/// case .serveStaleAndRevalidate(let age): print("answer at \(age) s, refresh behind")   // stale-while-revalidate
/// case .fetch, .gatewayTimeout, .miss: print("the network, or a 504, or a miss")
/// }
/// ```
public struct CacheStrategy: Sendable {
    /// What to do with a request.
    public enum Decision: Sendable, Equatable {
        /// Answer with `stored`, the stored response decided on, which is `age` seconds old.
        case serve(_ stored: CachedResponse, age: Int)
        /// Answer with `stored`, stale, now and revalidate it in the background.
        case serveStaleAndRevalidate(_ stored: CachedResponse, age: Int)
        /// Send the request with these conditional header fields; a 304 revalidates `stored`.
        case validate(_ stored: CachedResponse, conditions: HTTPFields)
        /// Send the request as it is: nothing usable is stored.
        case fetch
        /// `only-if-cached` and nothing usable is stored: answer 504 (RFC 9111 §5.2.1.7).
        case gatewayTimeout
        /// `.returnCacheDontLoad` and nothing is stored.
        case miss
    }

    /// A shared cache follows `s-maxage`, `proxy-revalidate`, refuses `private` responses and
    /// responses to requests with `Authorization` (unless the response allows it).
    public let isShared: Bool
    /// The fraction of the time since `Last-Modified` used as a heuristic lifetime.
    public let heuristicFraction: Double
    /// Targeted cache-control fields this cache obeys (RFC 9213), most specific first
    /// (`["CDN-Cache-Control"]`): the first one a response carries, when valid, replaces its
    /// `Cache-Control` for this cache, and `Expires` is then ignored.
    public let targetedFields: [String]

    /// A strategy for a private or shared cache, with the fraction of a response's age used as its
    /// heuristic lifetime (held to 0...1; NaN is 0, no heuristic lifetime), obeying
    /// `targetedFields` (none by default).
    public init(isShared: Bool = false, heuristicFraction: Double = 0.1, targetedFields: [String] = []) {
        self.isShared = isShared
        self.heuristicFraction = heuristicFraction.clamped(to: 0...1) ?? 0
        self.targetedFields = targetedFields
    }

    /// The directives this cache obeys for a response with `headers`: the first targeted field it
    /// carries that is a valid structured-field dictionary (RFC 9213 §2.1), else its
    /// `Cache-Control`.
    public func directives(of headers: HTTPFields) -> CacheControl {
        for name in targetedFields {
            let values = headers.values(for: name)
            guard !values.isEmpty else { continue }
            let value = values.joined(separator: ",")
            guard CacheControl.isValidDictionary(value) else { continue }  // an invalid one is ignored
            var directives = CacheControl(value)
            directives.isTargeted = true
            return directives
        }
        return CacheControl(headers)
    }

    /// Status codes that are heuristically cacheable (RFC 9110 §15.1).
    package static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Fields a cache never stores or updates from a 304 (RFC 9111 §3.1 and §3.2).
    static let unstoredFields: Set<String> = [
        "connection", "proxy-connection", "keep-alive", "te", "transfer-encoding", "upgrade",
        "proxy-authenticate", "proxy-authentication-info", "proxy-authorization",
    ]

    // MARK: Storing

    /// Whether `response` to `request` may be stored (RFC 9111 §3). A request with a
    /// `HTTPRequest.cacheTTL` makes any 2xx or heuristically cacheable response storable.
    package func mayStore(_ response: HTTPResponse, for request: HTTPRequest) -> Bool {
        let ttl = request.cacheTTL
        let requestDirectives = CacheControl(request.headers)
        let status = response.status.code
        guard request.method == .get || (request.method == .post && request.cachesPOST) else { return false }
        guard status >= 200, status != 206, status != 304 else { return false }
        guard !requestDirectives.noStore else { return false }
        let directives = directives(of: response.headers)
        if directives.mustUnderstand {
            // RFC 9111 §5.2.2.3: with must-understand, a status code this cache understands may be
            // stored despite no-store, and one it does not understand never is.
            guard Self.understoodStatuses.contains(status) else { return false }
        } else if directives.noStore {
            return false
        }
        if response.headers.values(for: "Vary").contains(where: { $0.trimmingOptionalWhitespace() == "*" }) { return false }
        if isShared {
            if directives.isPrivate && directives.privateFields.isEmpty { return false }
            if Self.carriesCredentials(request),
                !(directives.isPublic || directives.mustRevalidate || directives.sharedMaxAge != nil)
            {
                return false
            }
        }
        if ttl != nil { return (200..<300).contains(status) || Self.heuristicallyCacheable.contains(status) }
        return directives.isPublic
            || (directives.isPrivate && !isShared)
            || (response.headers.contains("Expires") && !directives.isTargeted)
            || directives.maxAge != nil
            || (isShared && directives.sharedMaxAge != nil)
            || Self.heuristicallyCacheable.contains(status)
    }

    /// Whether `request` carries credentials, for the shared-cache rule (RFC 9111 §3.5): an
    /// `Authorization` field, a field a stage marked as credentials
    /// (`HTTPRequest.credentialFields`), or credentials a stage below the cache will add.
    static func carriesCredentials(_ request: HTTPRequest) -> Bool {
        request.headers.contains("Authorization") || !request.credentialFields.isEmpty || request.options[CredentialsAddedBelowKey.self]
    }

    /// The fields of `response` to store: without hop-by-hop fields, those a `Connection` field
    /// names, in a shared cache those a qualified `private` or `no-cache` names, and never
    /// `Set-Cookie`/`Set-Cookie2` or another field `redaction` hides (`Redaction.default` and the
    /// request's policy, `HTTPRequest.redaction`, when the response has its request): a cookie
    /// is taken (by the jar) when it arrives, replaying it from the cache would set a stale one
    /// again (or one user's for another), and no store file ever holds a credential in clear.
    package func storedFields(of response: HTTPResponse, redaction: Redaction = .default) -> HTTPFields {
        let redaction = (response.request?.privacyPolicy ?? .default).adding(redaction)
        var named: Set<String> = []
        for value in response.headers.values(for: "Connection") {
            for name in value.utf8.split(separator: UInt8(ascii: ",")) { named.insert(Substring(name).trimmingOptionalWhitespace().lowercased()) }
        }
        if isShared {
            let directives = directives(of: response.headers)
            for name in directives.privateFields + directives.noCacheFields { named.insert(name.lowercased()) }
        }
        // One look at each name; a response with nothing to drop is returned as is.
        var excluded: [String] = []
        for name in response.headers.names {
            let lowercased = name.lowercased()
            if Self.unstoredFields.contains(lowercased) || lowercased == "set-cookie2" || named.contains(lowercased)
                || redaction.hidesHeader(lowercased: lowercased)
            {
                excluded.append(lowercased)
            }
        }
        guard !excluded.isEmpty else { return response.headers }
        var fields = response.headers
        for name in excluded { fields.remove(name: name) }
        return fields
    }

    // MARK: Freshness

    /// The freshness lifetime in seconds (RFC 9111 §4.2.1): `s-maxage` (shared), `max-age`,
    /// `Expires` minus `Date`, or the heuristic; `ttl` overrides them all (0 or 2^31 and more:
    /// forever, `Int.max`; a negative `ttl` is stale at once, 0).
    package func freshnessLifetime(of entry: CachedResponse, ttl: Int? = nil) -> Int {
        freshnessLifetime(of: entry, directives: directives(of: entry.headers), ttl: ttl)
    }

    /// The same, with the entry's `Cache-Control` already parsed.
    func freshnessLifetime(of entry: CachedResponse, directives: CacheControl, ttl: Int?) -> Int {
        if let ttl { return ttl == 0 || ttl >= CacheControl.maximumDeltaSeconds ? Int.max : max(0, ttl) }
        if isShared, let sharedMaxAge = directives.sharedMaxAge { return max(0, sharedMaxAge) }
        if let maxAge = directives.maxAge { return max(0, maxAge) }
        let date = Self.date(of: entry)
        if !directives.isTargeted, let expires = entry.headers["Expires"] {
            // An invalid Expires (such as "0") means already expired (RFC 9111 §5.3).
            guard let expiry = HTTPDate.parse(expires) else { return 0 }
            return max(0, Int(clamping: expiry.timeIntervalSince(date)))
        }
        guard Self.heuristicallyCacheable.contains(entry.status) || directives.isPublic,
            let lastModified = entry.headers["Last-Modified"].flatMap(HTTPDate.parse)
        else { return 0 }
        return max(0, Int(clamping: date.timeIntervalSince(lastModified) * heuristicFraction))
    }

    /// The entry's current age in seconds at `now` (RFC 9111 §4.2.3).
    package func currentAge(of entry: CachedResponse, now: Date) -> Int {
        let dateValue = Self.date(of: entry)
        let ageValue = Self.ageValue(entry.headers)
        let apparentAge = max(0, entry.responseTime.timeIntervalSince(dateValue))
        let responseDelay = max(0, entry.responseTime.timeIntervalSince(entry.requestTime))
        let correctedAgeValue = Double(ageValue) + responseDelay
        let correctedInitialAge = max(apparentAge, correctedAgeValue)
        let residentTime = max(0, now.timeIntervalSince(entry.responseTime))
        let age = correctedInitialAge + residentTime
        return age >= Double(CacheControl.maximumDeltaSeconds) ? CacheControl.maximumDeltaSeconds : Int(age)
    }

    /// The status codes whose caching rules this cache implements, for `must-understand`
    /// (RFC 9111 §5.2.2.3): the final, non-partial codes of RFC 9110 it knows.
    static let understoodStatuses: Set<Int> = [200, 203, 204, 300, 301, 302, 303, 307, 308, 404, 405, 410, 414, 501]

    /// The `Age` field's value (RFC 9111 §5.1): the first member when the field is repeated or a
    /// list (`Age: 7200, 0` is 7200); 0 when that member is not a non-negative integer.
    static func ageValue(_ headers: HTTPFields) -> Int {
        guard let first = headers.values(for: "Age").first?.split(separator: ",", omittingEmptySubsequences: false).first else { return 0 }
        return CacheControl.deltaSeconds(first.trimmingOptionalWhitespace()) ?? 0
    }

    /// The `Date` the origin sent, or the time the response arrived when it sent none or a bad one.
    static func date(of entry: CachedResponse) -> Date {
        entry.headers["Date"].flatMap(HTTPDate.parse) ?? entry.responseTime
    }

    // MARK: Deciding

    /// What to do with `request` given `stored`, the response stored under its key (nil when none).
    public func decide(_ request: HTTPRequest, stored: CachedResponse?, now: Date) -> Decision {
        decide(request, stored: stored, directives: stored.map { directives(of: $0.headers) }, now: now)
    }

    /// The same, with the stored response's `Cache-Control` already parsed.
    func decide(_ request: HTTPRequest, stored: CachedResponse?, directives: CacheControl?, now: Date) -> Decision {
        let policy = request.cachePolicy
        switch policy {
        case .reloadIgnoringCache:
            return .fetch
        case .returnCacheElseLoad:
            guard let stored, matchesVary(stored, request) else { return .fetch }
            return .serve(stored, age: currentAge(of: stored, now: now))
        case .returnCacheDontLoad:
            guard let stored, matchesVary(stored, request) else { return .miss }
            return .serve(stored, age: currentAge(of: stored, now: now))
        case .useProtocol, .offlineFallback:
            break
        }

        let requestDirectives = Self.requestDirectives(request)
        guard !requestDirectives.noStore || requestDirectives.onlyIfCached else { return .fetch }
        guard let stored, matchesVary(stored, request) else {
            return requestDirectives.onlyIfCached ? .gatewayTimeout : .fetch
        }
        let directives = directives ?? self.directives(of: stored.headers)
        let age = currentAge(of: stored, now: now)
        let lifetime = freshnessLifetime(of: stored, directives: directives, ttl: request.cacheTTL)
        let isFresh = lifetime > age
        let staleness = isFresh ? 0 : age - lifetime

        // Fresh and immutable: a reload does not revalidate (RFC 8246).
        let immutableAndFresh = directives.immutable && isFresh && request.cacheTTL == nil
        // A request's TTL overrides the response's freshness rules, no-cache included.
        var mustValidate = directives.noCache && directives.noCacheFields.isEmpty && request.cacheTTL == nil
        if !immutableAndFresh {
            if requestDirectives.noCache { mustValidate = true }
            if let maxAge = requestDirectives.maxAge, age > maxAge || maxAge == 0 { mustValidate = true }
        }
        if let minFresh = requestDirectives.minFresh, lifetime != Int.max, lifetime - age < minFresh { mustValidate = true }

        if !mustValidate {
            if isFresh { return .serve(stored, age: age) }
            let mayServeStale =
                !directives.mustRevalidate
                && !(isShared && (directives.proxyRevalidate || directives.sharedMaxAge != nil))
            if mayServeStale, let maxStale = requestDirectives.maxStale, maxStale.map({ staleness <= $0 }) ?? true {
                return .serve(stored, age: age)
            }
            if mayServeStale, let window = directives.staleWhileRevalidate, staleness <= window,
                !requestDirectives.onlyIfCached
            {
                return .serveStaleAndRevalidate(stored, age: age)
            }
        }
        if requestDirectives.onlyIfCached { return .gatewayTimeout }
        let conditions = conditionalFields(for: stored)
        return conditions.isEmpty ? .fetch : .validate(stored, conditions: conditions)
    }

    /// Whether `stored` may serve `request` given its `Vary` (RFC 9111 §4.1): every field the
    /// response varies on has the same value (whitespace-normalized) in both requests. `Vary: *`
    /// never matches.
    package func matchesVary(_ stored: CachedResponse, _ request: HTTPRequest) -> Bool {
        guard let values = Self.varyValues(stored.headers, request) else { return false }
        return values == stored.varyValues
    }

    /// For each field `responseHeaders`' `Vary` names, the request's value (nil when absent); nil
    /// when the response varies on `*`. The values of secret fields (`Authorization`, `Cookie`,
    /// the names `Redaction.default` and the request's `HTTPRequest.redaction` hide) are kept
    /// as SHA-256 fingerprints, so a store never holds a credential.
    package static func varyValues(_ responseHeaders: HTTPFields, _ request: HTTPRequest) -> [String: String?]? {
        var values: [String: String?] = [:]
        let redaction = request.privacyPolicy
        for value in responseHeaders.values(for: "Vary") {
            for name in value.split(separator: ",") {
                let field = name.trimmingOptionalWhitespace().lowercased()
                if field == "*" { return nil }
                if field.isEmpty { continue }
                guard request.headers.contains(field) else {
                    values[field] = String?.none
                    continue
                }
                let value = request.headers.values(for: field).map { normalized($0) }.joined(separator: ",")
                values[field] = redaction.hidesHeader(field) ? CacheMiddleware.fingerprint(value) : value
            }
        }
        return values
    }

    /// A field value normalised for comparing selecting fields (RFC 9111 §4.1): the whitespace
    /// around its comma-separated members removed, and runs of whitespace inside a member made one
    /// space, so `gzip, deflate`, `gzip,deflate` and two lines `gzip` and `deflate` match.
    private static func normalized(_ value: String) -> String {
        value.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ") }
            .joined(separator: ",")
    }

    /// Whether the caller's own conditions hold for `stored`, so a 304 answers them (RFC 9110
    /// §13.1.2 and §13.1.3, as RFC 9111 §4.3.2 applies them): `If-None-Match` when one of its
    /// entity tags (or `*`) matches the stored `ETag` by weak comparison; without it,
    /// `If-Modified-Since` when the stored `Last-Modified` (or `Date`) is not later.
    package func conditionsMatch(_ request: HTTPRequest, _ stored: CachedResponse) -> Bool {
        let noneMatch = request.headers.values(for: "If-None-Match")
        if !noneMatch.isEmpty {
            guard let etag = stored.headers["ETag"].map(Self.weak) else { return false }
            let tags = noneMatch.flatMap { $0.split(separator: ",") }.map { $0.trimmingOptionalWhitespace() }
            return tags.contains("*") || tags.contains { Self.weak($0) == etag }
        }
        guard let since = request.headers["If-Modified-Since"].flatMap(HTTPDate.parse),
            let modified = stored.headers["Last-Modified"].flatMap(HTTPDate.parse) ?? stored.headers["Date"].flatMap(HTTPDate.parse)
        else { return false }
        return modified <= since
    }

    /// An entity tag without its weakness mark, for weak comparison.
    private static func weak(_ tag: String) -> String {
        let trimmed = tag.trimmingOptionalWhitespace()
        return trimmed.hasPrefix("W/") ? String(trimmed.dropFirst(2)) : trimmed
    }

    /// `If-None-Match` from the stored `ETag`, `If-Modified-Since` from its `Last-Modified`.
    package func conditionalFields(for stored: CachedResponse) -> HTTPFields {
        var fields = HTTPFields()
        if let etag = stored.headers["ETag"] { try? fields.append(name: "If-None-Match", value: etag) }
        if let lastModified = stored.headers["Last-Modified"] {
            try? fields.append(name: "If-Modified-Since", value: lastModified)
        }
        return fields
    }

    /// `stored` brought up to date by a 304 (RFC 9111 §4.3.4 and §3.2): each field of the 304
    /// replaces the stored ones of that name, except `Content-Length` and the unstored fields; the
    /// request and response times become the new exchange's.
    ///
    /// `redaction` names fields never stored, as in ``storedFields(of:redaction:)``.
    package func updated(
        _ stored: CachedResponse, with notModified: HTTPResponse, requestTime: Date, responseTime: Date, redaction: Redaction = .default
    ) -> CachedResponse {
        var updated = stored
        let fresh = storedFields(of: notModified, redaction: redaction)
        var replaced = Set<String>()
        for field in fresh {
            let name = field.name.lowercased()
            if Self.bodyDescribingFields.contains(name) || Self.unstoredFields.contains(name) { continue }
            if replaced.insert(name).inserted { updated.headers.remove(name: field.name) }
            try? updated.headers.append(name: field.name, value: field.value)
        }
        updated.requestTime = requestTime
        updated.responseTime = responseTime
        return updated
    }

    /// The fields that describe the stored body's bytes: a 304 never replaces them (RFC 9111 §3.2),
    /// since the body it validates is the stored one, as it was stored.
    static let bodyDescribingFields: Set<String> = ["content-length", "content-type", "content-encoding", "content-range"]

    /// Whether a 304 may update `stored` (RFC 9111 §4.3.3): its strong validator matches the
    /// stored one, or it has no validator.
    package func notModified(_ response: HTTPResponse, matches stored: CachedResponse) -> Bool {
        guard let etag = response.headers["ETag"] else { return true }
        guard let storedETag = stored.headers["ETag"] else { return false }
        return Self.weakCompare(etag, storedETag)
    }

    /// Weak comparison of entity tags (RFC 9110 §8.8.3.2): equal once a `W/` prefix is dropped.
    /// An unquoted tag (as some servers send) compares by its text.
    package static func weakCompare(_ a: String, _ b: String) -> Bool {
        func opaque(_ tag: String) -> Substring {
            var tag = Substring(tag.trimmingOptionalWhitespace())
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            if tag.count >= 2, tag.first == "\"", tag.last == "\"" { tag = tag.dropFirst().dropLast() }
            return tag
        }
        return opaque(a) == opaque(b)
    }

    /// The request's directives; `Pragma: no-cache` counts as `no-cache` when the request has no
    /// `Cache-Control` (RFC 9111 §5.4).
    static func requestDirectives(_ request: HTTPRequest) -> CacheControl {
        var directives = CacheControl(request.headers)
        if !request.headers.contains("Cache-Control"),
            request.headers.values(for: "Pragma").contains(where: { $0.lowercased().contains("no-cache") })
        {
            directives.noCache = true
        }
        return directives
    }
}
