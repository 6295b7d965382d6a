import Foundation

extension Client {
    /// The URL for `path`: `path` itself when it is absolute (has a scheme), else `path` joined to
    /// the base URL with exactly one slash between them, whatever slashes either side has.
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
        try Self.join(base: configuration.baseURL, path: path)
    }

    /// The joining rule of ``url(for:)``. `package`: the OpenAPI transport joins a server URL by it.
    package static func join(base: URL?, path: String) throws(SluiceError) -> URL {
        // Only a path that starts with a scheme (`https:`) can be absolute: a relative one, the
        // usual call against a base URL, is parsed once, joined, not twice.
        if startsWithScheme(path), let absolute = URL(string: path), let scheme = absolute.scheme, !scheme.isEmpty,
            absolute.host(percentEncoded: true) != nil
        {
            return absolute
        }
        if path.contains("://") {
            throw SluiceError(.invalidURL, "\(String(reflecting: path)) is not a valid absolute URL", stage: .client)
        }
        guard let base else {
            throw SluiceError(
                .invalidURL, "\(String(reflecting: path)) is not an absolute URL and the client has no base URL",
                stage: .client
            )
        }
        if path.isEmpty { return base }
        var baseString = base.absoluteString
        while baseString.hasSuffix("/") { baseString.removeLast() }
        let trimmedPath = path.drop { $0 == "/" }
        let joined = baseString + "/" + trimmedPath
        guard let url = URL(string: joined) else {
            throw SluiceError(
                .invalidURL, "\(String(reflecting: joined)) (base URL joined with \(String(reflecting: path))) is not a valid URL",
                stage: .client
            )
        }
        return url
    }

    /// Whether `text` starts with RFC 3986's scheme syntax and its colon (`ALPHA *( ALPHA / DIGIT /
    /// "+" / "-" / "." ) ":"`): without it no parser finds a scheme.
    package static func startsWithScheme(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard let first = bytes.first, (first | 0x20) >= UInt8(ascii: "a"), (first | 0x20) <= UInt8(ascii: "z") else { return false }
            for byte in bytes.dropFirst() {
                switch byte {
                case UInt8(ascii: ":"): return true
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                    continue
                default: return false
                }
            }
            return false
        }
    }
}
