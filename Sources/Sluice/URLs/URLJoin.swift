import Foundation

/// The one rule that joins a base URL and a path, used by ``Client/url(for:)``, by every request
/// the core prepares (``HTTPRequest``s with a relative URL) and by the OpenAPI transport (a server
/// URL and an operation's path): the same path leaves as the same URL by every door.
///
/// - A path that is an absolute URL (a scheme, then `//` and a host) is used as it is.
/// - Otherwise it follows the base's path with exactly one slash between them, whatever slashes
///   either side has; an empty path is the base itself.
/// - The base's own query comes first, then the path's (`?key=K` on the base and `users?page=2`
///   make `users?key=K&page=2`), as Alamofire's and Retrofit's base URLs keep theirs. The base's
///   fragment is dropped, as RFC 3986's resolution drops it.
package enum URLJoin {
    /// `path` joined to `base` by the rule above.
    ///
    /// - Throws: `.invalidURL` (stage ``PipelineStage/client``) when `path` looks absolute
    ///   (`scheme://`) but does not parse, is relative with no base, or the join is no URL.
    package static func join(_ path: String, to base: URL?) throws(SluiceError) -> URL {
        // Only a path that starts with a scheme (`https:`) can be absolute: a relative one, the
        // usual call against a base URL, is parsed once, joined, not twice.
        let hasScheme = startsWithScheme(path)
        if hasScheme, let absolute = URL(string: path), let scheme = absolute.scheme, !scheme.isEmpty, absolute.host(percentEncoded: true) != nil {
            return absolute
        }
        if hasScheme, path.drop(while: { $0 != ":" }).dropFirst().hasPrefix("//") {
            throw SluiceError(.invalidURL, "\(quoted(path)) is not a valid absolute URL", stage: .client)
        }
        guard let base else {
            throw SluiceError(.invalidURL, "\(quoted(path)) is not an absolute URL and the client has no base URL", stage: .client)
        }
        if path.isEmpty { return base }
        let baseText = base.absoluteString
        var head = baseText[..<(baseText.firstIndex { $0 == "?" || $0 == "#" } ?? baseText.endIndex)]
        while head.hasSuffix("/") { head.removeLast() }
        let relative = path.drop { $0 == "/" }
        var joined = String(head) + "/" + relative
        if let baseQuery = base.query(percentEncoded: true), !baseQuery.isEmpty {
            let split = relative.firstIndex { $0 == "?" || $0 == "#" } ?? relative.endIndex
            let rest = relative[split...]
            let query = rest.hasPrefix("?") ? baseQuery + "&" + rest.dropFirst() : baseQuery + rest
            joined = String(head) + "/" + relative[..<split] + "?" + query
        }
        guard let url = URL(string: joined) else {
            throw SluiceError(
                .invalidURL, "\(quoted(joined)) (base URL joined with \(quoted(path))) is not a valid URL", stage: .client)
        }
        return url
    }

    /// `text` quoted for an error message, through the default privacy policy: a path or a base
    /// URL may carry a token, a key or a password.
    private static func quoted(_ text: String) -> String {
        String(reflecting: Redaction.default.url(text: text))
    }

    /// Whether `text` starts with RFC 3986's scheme syntax and its colon (`ALPHA *( ALPHA / DIGIT /
    /// "+" / "-" / "." ) ":"`): without it no parser finds a scheme.
    package static func startsWithScheme(_ text: String) -> Bool {
        // The bytes as they come, no copy and no closure: this runs on every request sent.
        var isFirst = true
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): break
            case UInt8(ascii: ":"): return !isFirst
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."): if isFirst { return false }
            default: return false
            }
            isFirst = false
        }
        return false
    }
}
