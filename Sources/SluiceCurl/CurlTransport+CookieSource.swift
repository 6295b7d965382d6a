import Foundation
import Sluice

/// The transport's cookie jar, shown to the chain: a ``Sluice/Pipeline`` over a transport with a
/// jar hands it to every call's context, so the cache matches `Vary: Cookie` against the cookies
/// curl will really send.
///
/// ```swift
/// var configuration = CurlTransport.Configuration()
/// configuration.cookieJar = .memory
/// let transport = CurlTransport(configuration: configuration)
/// transport.cookieField(for: URL(string: "https://api.example.com/me")!)   // "session=abc123"
/// ```
extension CurlTransport: CookieSource {
    /// Whether the transport keeps a cookie jar (``Configuration-swift.struct/cookieJar``).
    public var keepsCookies: Bool { cookieJar != nil }

    /// The `Cookie` field curl will add to a request for `url` from the jar: the cookies whose
    /// domain, path, `Secure` flag and expiry match, longest path first, matched against the URL
    /// as curl will send it (``urlAsSent(_:)``: `http://127.1/` is `127.0.0.1`'s). `nil` without
    /// a jar or without a match.
    public func cookieField(for url: URL) -> String? {
        guard let cookieJar else { return nil }
        return cookieJar.cookieField(for: urlAsSent(url))
    }
}
