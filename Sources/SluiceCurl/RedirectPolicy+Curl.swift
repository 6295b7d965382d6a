import Sluice

/// Whether and how far a transport follows redirects.
///
/// ```swift
/// var request = HTTPRequest(url: url)
/// request.redirectPolicy = .none             // see the 302 itself
/// request.redirectPolicy = .follow(max: 3)
/// ```
///
/// Only `http` and `https` targets are followed; a redirect to any other scheme fails with
/// `.invalidURL`. Past the limit the call fails with `.tooManyRedirects`.
public enum RedirectPolicy: Hashable, Sendable {
    /// Return 3xx responses as they are.
    case none
    /// Follow up to `max` redirects.
    case follow(max: Int)

    /// Follow up to 10, like browsers and curl's `-L` with its default limit.
    public static let `default` = RedirectPolicy.follow(max: 10)
}

/// The per-request redirect policy; `nil` uses the transport's configuration.
public enum RedirectPolicyKey: RequestOptionKey {
    public static let defaultValue: RedirectPolicy? = nil
}

/// The per-request response size limit in bytes; `nil` uses the transport's configuration.
public enum MaxResponseBodySizeKey: RequestOptionKey {
    public static let defaultValue: Int? = nil
}

extension HTTPRequest {
    /// Overrides the transport's redirect policy for this request.
    public var redirectPolicy: RedirectPolicy? {
        get { options[RedirectPolicyKey.self] }
        set { options[RedirectPolicyKey.self] = newValue }
    }

    /// Overrides the transport's in-memory response size limit for this request.
    public var maxResponseBodySize: Int? {
        get { options[MaxResponseBodySizeKey.self] }
        set { options[MaxResponseBodySizeKey.self] = newValue }
    }
}
