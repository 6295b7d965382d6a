#if HTTPTypes
    import Foundation
    import HTTPTypes
    import Sluice

    extension HTTPTypes.HTTPRequest {
        /// The head of a Sluice request as swift-http-types says it: the method, `:scheme`,
        /// `:authority` (host and port) and `:path` (path and query, as percent-encoded in the
        /// URL) from `HTTPRequest.url`, and the fields in order, repeated names kept.
        ///
        /// What HTTPTypes has no place for is not carried: the body, the options, and the URL's
        /// fragment (which is never sent).
        ///
        /// ```swift
        /// import Foundation
        /// import HTTPTypes
        /// import Sluice
        /// import SluiceHTTPTypes
        ///
        /// var request = Sluice.HTTPRequest(url: URL(string: "https://api.example.com/items?page=2")!)
        /// try request.headers.append(name: "Accept", value: "application/json")
        /// let head = try HTTPTypes.HTTPRequest(request)
        /// head.authority   // "api.example.com"
        /// head.path        // "/items?page=2"
        /// ```
        ///
        /// - Throws: `SluiceError` `.invalidURL` for a URL with no scheme or host, or with a user
        ///   name or password (an `:authority` has no room for them: send them in an
        ///   `Authorization` field); `.invalidHeader` for a field HTTPTypes refuses.
        public init(_ request: Sluice.HTTPRequest) throws(SluiceError) {
            let url = request.url
            guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true), let scheme = components.scheme,
                let host = components.percentEncodedHost, !host.isEmpty
            else {
                throw SluiceError(.invalidURL, "\(request) has no scheme and host, so HTTPTypes.HTTPRequest cannot say where it goes")
            }
            guard components.percentEncodedUser == nil, components.percentEncodedPassword == nil else {
                throw SluiceError(
                    .invalidURL,
                    "\(request) carries a user name or password in its URL, which HTTPTypes.HTTPRequest cannot hold; "
                        + "send them in an Authorization field")
            }
            guard let method = Method(request.method.rawValue) else {
                throw SluiceError(.misconfigured, "the method \(String(reflecting: request.method.rawValue)) is not an HTTP token")
            }
            let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            let authority = components.port.map { "\(bracketed):\($0)" } ?? bracketed
            var path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            if let query = components.percentEncodedQuery { path += "?" + query }
            self.init(
                method: method, scheme: scheme.lowercased(), authority: authority, path: path,
                headerFields: try HTTPTypes.HTTPFields(request.headers))
        }
    }

    extension Sluice.HTTPRequest {
        /// A Sluice request from a swift-http-types request head and a body: its URL made of
        /// `:scheme`, `:authority` and `:path`, its fields in order.
        ///
        /// ```swift
        /// import Foundation
        /// import HTTPTypes
        /// import Sluice
        /// import SluiceHTTPTypes
        ///
        /// let head = HTTPTypes.HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/items")
        /// let request = try Sluice.HTTPRequest(head)
        /// request.url.absoluteString   // "https://api.example.com/items"
        /// ```
        ///
        /// - Throws: `SluiceError` `.invalidURL` for a head with no scheme or authority (an HTTP/1
        ///   origin-form request, or `CONNECT`), a scheme other than http or https, an authority
        ///   that is not `host[:port]` (a path, query, fragment or userinfo in it), a path that
        ///   does not start with `/` (`OPTIONS *`) or carries a fragment, or parts that make no
        ///   URL; `.invalidHeader` for a field Sluice refuses (a control character in a value).
        public init(_ head: HTTPTypes.HTTPRequest, body: HTTPBody = .empty) throws(SluiceError) {
            guard let scheme = head.scheme, let authority = head.authority, !authority.isEmpty else {
                throw SluiceError(
                    .invalidURL,
                    "the \(head.method.rawValue) request has no \(head.scheme == nil ? ":scheme" : ":authority"), so Sluice cannot tell where to send it")
            }
            let path = head.path ?? "/"
            guard path.hasPrefix("/") else {
                throw SluiceError(.invalidURL, "the path \(String(reflecting: Redaction.default.url(text: path))) does not start with \"/\"")
            }
            // Each part stays in its place: the authority is host[:port] (a path, query, fragment
            // or userinfo in it would be pasted into the URL as something else), the path carries
            // no fragment (it is never sent), and the scheme is one curl speaks.
            guard Self.isHostAndPort(authority) else {
                // Userinfo may be a password: the authority is then not quoted.
                let quoted = authority.contains("@") ? "" : " " + String(reflecting: authority).escapingControlCharacters()
                throw SluiceError(
                    .invalidURL,
                    ":authority\(quoted) is not host[:port]: it may hold no path, query, fragment, userinfo or space"
                        + (quoted.isEmpty ? " (it holds userinfo, not repeated here)" : ""))
            }
            guard !path.contains("#") else {
                throw SluiceError(
                    .invalidURL,
                    "the path \(String(reflecting: Redaction.default.url(text: path)).escapingControlCharacters()) carries a fragment, which is never sent")
            }
            guard ["http", "https"].contains(scheme.lowercased()) else {
                throw SluiceError(.invalidURL, ":scheme \(String(reflecting: scheme).escapingControlCharacters()) is not http or https")
            }
            let text = "\(scheme)://\(authority)\(path)"
            guard let url = URL(string: text), url.host != nil else {
                throw SluiceError(
                    .invalidURL, "\(String(reflecting: Redaction.default.url(text: text))) (:scheme, :authority and :path) is not a valid URL")
            }
            self.init(method: try HTTPMethod(head.method), url: url, headers: try Sluice.HTTPFields(head.headerFields), body: body)
        }
    }
    extension Sluice.HTTPRequest {
        /// Whether `authority` is `host[:port]`: a registered name or IPv4 address (unreserved
        /// characters, sub-delimiters and percent escapes), or an IPv6 literal in brackets, then at
        /// most one `:` and up to five digits.
        static func isHostAndPort(_ authority: String) -> Bool {
            var host = Substring(authority)
            var port: Substring?
            if host.hasPrefix("[") {
                guard let close = host.firstIndex(of: "]") else { return false }
                let literal = host[host.index(after: host.startIndex)..<close]
                guard !literal.isEmpty, literal.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return false }
                let rest = host[host.index(after: close)...]
                if !rest.isEmpty {
                    guard rest.hasPrefix(":") else { return false }
                    port = rest.dropFirst()
                }
                host = ""
            } else if let colon = host.firstIndex(of: ":") {
                port = host[host.index(after: colon)...]
                host = host[..<colon]
                guard !host.isEmpty else { return false }
            }
            if let port, port.isEmpty || port.count > 5 || !port.allSatisfy({ $0.isASCII && $0.isNumber }) { return false }
            return host.unicodeScalars.allSatisfy { scalar in
                scalar.properties.isAlphabetic && scalar.isASCII || ("0"..."9").contains(scalar) || "-._~!$&'()*+,;=%".unicodeScalars.contains(scalar)
            }
        }
    }

    extension HTTPMethod {
        /// swift-http-types' method as Sluice's: both are RFC 9110 tokens, so this throws only if
        /// one side's rules change.
        ///
        /// - Throws: `SluiceError` `.misconfigured` for a method Sluice refuses.
        package init(_ method: HTTPTypes.HTTPRequest.Method) throws(SluiceError) {
            guard let converted = HTTPMethod(rawValue: method.rawValue) else {
                throw SluiceError(.misconfigured, "the method \(String(reflecting: method.rawValue)) is not an HTTP token")
            }
            self = converted
        }
    }
#else
    #warning("SluiceHTTPTypes is empty: turn on the package trait \"HTTPTypes\" where you depend on Sluice")
#endif
