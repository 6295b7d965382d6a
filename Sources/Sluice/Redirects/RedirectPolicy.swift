/// Whether and how far ``RedirectMiddleware`` follows redirects.
///
/// ```swift
/// import Sluice
///
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
    /// Follow up to `max` redirects; 0 or less follows none (a redirect is `.tooManyRedirects`).
    case follow(max: Int)

    /// Follow up to 10, like browsers and curl's `-L` with its default limit.
    public static let `default` = RedirectPolicy.follow(max: 10)
}
