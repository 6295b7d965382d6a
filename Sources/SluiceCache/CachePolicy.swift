import Sluice

/// How one request uses the cache, set with `HTTPRequest.cachePolicy`.
///
/// ```swift
/// import Sluice
/// import SluiceCache
///
/// var request = HTTPRequest(url: url)
/// request.cachePolicy = .returnCacheElseLoad       // any stored copy, else the network
/// request.cacheTTL = 300                            // fresh for 5 minutes, whatever the headers say
/// ```
///
/// URLSession's names lead to these with a compiler fix-it: `.returnCacheDataElseLoad` is
/// ``returnCacheElseLoad``, and so on.
public enum CachePolicy: Sendable, Hashable {
    /// RFC 9111's rules: serve fresh copies, validate stale ones, store what may be stored.
    /// URLSession's `.useProtocolCachePolicy`; OkHttp's default.
    case useProtocol
    /// Skip the stored copy, fetch, and store the result. The fetch is the call's own: it never
    /// shares an identical call's fetch in flight, and when it fails the error is the answer (no
    /// stale copy stands in for it). URLSession's `.reloadIgnoringLocalCacheData`; OkHttp's
    /// `CacheControl.FORCE_NETWORK`.
    case reloadIgnoringCache
    /// Any stored copy, fresh or stale; the network only when there is none. URLSession's
    /// `.returnCacheDataElseLoad`.
    case returnCacheElseLoad
    /// The stored copy, fresh or stale, or a `.cacheMiss` error; never the network. URLSession's
    /// `.returnCacheDataDontLoad`; OkHttp's `CacheControl.FORCE_CACHE` (a 504 there).
    case returnCacheDontLoad
    /// RFC 9111's rules, and when the network fails (or the reachability gate says offline) any
    /// stored copy instead of the error.
    case offlineFallback

    /// URLSession's name for ``useProtocol``.
    @available(*, unavailable, renamed: "useProtocol")
    public static var useProtocolCachePolicy: CachePolicy { .useProtocol }
    /// URLSession's name for ``reloadIgnoringCache``.
    @available(*, unavailable, renamed: "reloadIgnoringCache")
    public static var reloadIgnoringLocalCacheData: CachePolicy { .reloadIgnoringCache }
    /// URLSession's name for ``reloadIgnoringCache``.
    @available(*, unavailable, renamed: "reloadIgnoringCache")
    public static var reloadIgnoringLocalAndRemoteCacheData: CachePolicy { .reloadIgnoringCache }
    /// URLSession's name for ``returnCacheElseLoad``.
    @available(*, unavailable, renamed: "returnCacheElseLoad")
    public static var returnCacheDataElseLoad: CachePolicy { .returnCacheElseLoad }
    /// URLSession's name for ``returnCacheDontLoad``.
    @available(*, unavailable, renamed: "returnCacheDontLoad")
    public static var returnCacheDataDontLoad: CachePolicy { .returnCacheDontLoad }
}

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
    /// 0 keeps it fresh forever. `nil`: the headers decide.
    public var cacheTTL: Int? {
        get { options[CacheTTLKey.self] }
        set { options[CacheTTLKey.self] = newValue }
    }
}
