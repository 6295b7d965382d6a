import Sluice

// CacheMiddleware's per-request options: each key next to its property.

/// The request's ``CachePolicy``; `.useProtocol` unless set.
enum CachePolicyKey: RequestOptionKey {
    static let defaultValue = CachePolicy.useProtocol
    static let reader: OptionReader? = OptionReader(property: "request.cachePolicy", middleware: "CacheMiddleware", module: "SluiceCache")
}

/// A per-request freshness lifetime in seconds that overrides the response's headers (0: forever).
enum CacheTTLKey: RequestOptionKey {
    static let defaultValue: Int? = nil
    static let reader: OptionReader? = OptionReader(property: "request.cacheTTL", middleware: "CacheMiddleware", module: "SluiceCache")
}

/// Set by the cache on its own copy of a request (never one that is sent): a stage below it will
/// add credentials (`CredentialSource`).
enum CredentialsAddedBelowKey: RequestOptionKey {
    static let defaultValue = false
}

/// Whether a POST may be answered from and stored in the cache (keyed by a hash of its body).
enum CachesPOSTKey: RequestOptionKey {
    static let defaultValue = false
    static let reader: OptionReader? = OptionReader(property: "request.cachesPOST", middleware: "CacheMiddleware", module: "SluiceCache")
}

extension HTTPRequest {
    /// Let this POST be answered from and stored in the cache like a GET: its key
    /// is the URL plus a SHA-256 of the body, and it does not invalidate its URL. Only in-memory
    /// bodies (`.bytes`) take part. Off by default.
    public var cachesPOST: Bool {
        get { options[CachesPOSTKey.self] }
        set { options[CachesPOSTKey.self] = newValue }
    }

    /// How this request uses the cache (``CachePolicy``); `.useProtocol` by default.
    public var cachePolicy: CachePolicy {
        get { options[CachePolicyKey.self] }
        set { options[CachePolicyKey.self] = newValue }
    }

    /// A freshness lifetime in seconds for the response to this request, overriding its headers;
    /// 0 (or 2^31 and more) keeps it fresh forever, a negative one makes it stale at once. `nil`:
    /// the headers decide.
    public var cacheTTL: Int? {
        get { options[CacheTTLKey.self] }
        set { options[CacheTTLKey.self] = newValue }
    }
}
