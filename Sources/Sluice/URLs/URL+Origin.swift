import Foundation

extension URL {
    /// `scheme://host:port`, the scheme's default port filled in, scheme and host lowercased: what
    /// decides where a credential, a cookie, an invalidation, a redirect or a circuit reaches.
    /// `package`: the redirect follower, the cache and the resilience middleware share it.
    package var origin: String {
        let scheme = scheme?.lowercased() ?? ""
        let port = port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return scheme + "://" + (host?.lowercased() ?? "") + ":" + String(port)
    }
}
