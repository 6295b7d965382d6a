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
