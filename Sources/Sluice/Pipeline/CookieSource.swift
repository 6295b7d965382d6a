import Foundation

/// A transport that adds cookies from a jar of its own, below the chain, tells the chain which: so
/// a stage that decides on the request (the cache matching `Vary: Cookie`) decides on the request
/// as it will really be sent. ``Pipeline`` hands its transport to each call's context
/// (``RequestContext/cookieSource``) when ``keepsCookies`` is true.
///
/// ```swift
/// import Sluice
///
/// // In a middleware: the Cookie field this request will carry on the wire.
/// let cookie = context.cookieField(for: request)
/// ```
public protocol CookieSource: Sendable {
    /// Whether there is a jar at all; `false` leaves the context without a source (free).
    var keepsCookies: Bool { get }

    /// The `Cookie` field value the transport will add to a request for `url` (`a=1; b=2`), or
    /// `nil` when it adds none.
    func cookieField(for url: URL) -> String?
}

extension RequestContext {
    /// The `Cookie` field `request` will carry on the wire: its own `Cookie` fields, then the
    /// cookies the transport's jar adds for its URL. `nil` when there is none.
    public func cookieField(for request: HTTPRequest) -> String? {
        let own = request.headers.values(for: "Cookie")
        let jar = cookieSource?.cookieField(for: request.url)
        let all = own + (jar.map { [$0] } ?? [])
        return all.isEmpty ? nil : all.joined(separator: "; ")
    }
}
