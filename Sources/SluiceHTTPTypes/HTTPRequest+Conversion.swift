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
        ///   origin-form request, or `CONNECT`), a path that does not start with `/` (`OPTIONS *`),
        ///   or parts that make no URL; `.invalidHeader` for a field Sluice refuses (a control
        ///   character in a value).
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
            let text = "\(scheme)://\(authority)\(path)"
            guard let url = URL(string: text), url.host != nil else {
                throw SluiceError(
                    .invalidURL, "\(String(reflecting: Redaction.default.url(text: text))) (:scheme, :authority and :path) is not a valid URL")
            }
            self.init(method: try HTTPMethod(head.method), url: url, headers: try Sluice.HTTPFields(head.headerFields), body: body)
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
