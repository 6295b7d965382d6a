import Foundation

extension Client {
    /// The URL for `path`: `path` itself when it is absolute (has a scheme and a host), else `path`
    /// joined to the base URL with exactly one slash between them, whatever slashes either side
    /// has, and the base's own query first. A request whose URL is relative is joined by the same
    /// rule when it is sent, by any door.
    ///
    /// ```swift
    /// import Sluice
    ///
    /// // base "https://api.example.com/v1" or "https://api.example.com/v1/"
    /// try client.url(for: "users")     // https://api.example.com/v1/users
    /// try client.url(for: "/users?a=1")// https://api.example.com/v1/users?a=1
    /// try client.url(for: "https://other.example.com/x")  // unchanged
    /// ```
    ///
    /// - Throws: `.invalidURL` when `path` looks absolute (`scheme://`) but does not parse, or is
    ///   relative (or empty) with no base URL.
    public func url(for path: String) throws(SluiceError) -> URL {
        try URLJoin.join(path, to: configuration.baseURL)
    }
}
