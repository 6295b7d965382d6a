import Foundation

extension CurlCookieJar {
    /// One line of curl's cookie list, read back.
    struct Cookie {
        let domain: String
        let tailmatch: Bool
        /// The path as set (curl orders by its length).
        let path: String
        /// The path as matched: without a trailing `/` (curl's `sanitize_cookie_path`).
        let matchPath: String
        let secure: Bool
        let expires: Int64
        let name: String
        let value: String

        /// Parses `[#HttpOnly_]domain TAB tailmatch TAB path TAB secure TAB expires TAB name TAB value`.
        init?(line: String) {
            var fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 7 else { return nil }
            if fields[0].hasPrefix("#HttpOnly_") { fields[0].removeFirst("#HttpOnly_".count) }
            guard !fields[0].hasPrefix("#"), let expires = Int64(fields[4]), !fields[5].isEmpty else { return nil }
            domain = (fields[0].hasPrefix(".") ? String(fields[0].dropFirst()) : fields[0]).lowercased()
            tailmatch = fields[1] == "TRUE"
            path = fields[2].isEmpty ? "/" : fields[2]
            matchPath = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
            secure = fields[3] == "TRUE"
            self.expires = expires
            name = fields[5]
            value = fields[6]
        }

        /// curl 7.88's rules for sending a cookie (`Curl_cookie_getlist`): not expired, secure
        /// ones only in a secure context, the domain equal (or a parent, for a domain cookie on a
        /// host name), and the path a prefix of the request's at a `/`.
        func matches(host: String, isIP: Bool, path requestPath: String, secureContext: Bool, now: Int64) -> Bool {
            guard expires == 0 || expires > now, !secure || secureContext else { return false }
            let domainMatches = tailmatch && !isIP ? (host == domain || host.hasSuffix("." + domain)) : host == domain
            guard domainMatches else { return false }
            guard matchPath != "/" else { return true }
            guard requestPath.utf8.starts(with: matchPath.utf8) else { return false }
            return requestPath.utf8.count == matchPath.utf8.count || requestPath.utf8.dropFirst(matchPath.utf8.count).first == UInt8(ascii: "/")
        }
    }

    /// The `Cookie` field curl will send with a request for `url`: the matching cookies in curl's
    /// order (`cookie_sort`): longest path as set first, then longest domain, then longest name,
    /// then newest (curl lists cookies oldest first; a replaced one keeps its place). `nil` when
    /// none match.
    func cookieField(for url: URL) -> String? {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        let cookies = lines.compactMap(Cookie.init(line:))
        guard !cookies.isEmpty else { return nil }
        let scheme = url.scheme?.lowercased()
        let bareHost = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        let isIP = bareHost.contains(":") || bareHost.split(separator: ".").allSatisfy { UInt8($0) != nil }
        let secureContext = scheme == "https" || host == "localhost" || host == "127.0.0.1" || host == "[::1]"
        let raw = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        let path = raw.hasPrefix("/") ? raw : "/"
        let now = Int64(Date().timeIntervalSince1970)
        let sent = cookies.enumerated()
            .filter { $0.element.matches(host: bareHost, isIP: isIP, path: path, secureContext: secureContext, now: now) }
            .sorted { lhs, rhs in
                let (a, b) = (lhs.element, rhs.element)
                if a.path.utf8.count != b.path.utf8.count { return a.path.utf8.count > b.path.utf8.count }
                if a.domain.utf8.count != b.domain.utf8.count { return a.domain.utf8.count > b.domain.utf8.count }
                if a.name.utf8.count != b.name.utf8.count { return a.name.utf8.count > b.name.utf8.count }
                return lhs.offset > rhs.offset
            }
        guard !sent.isEmpty else { return nil }
        return sent.map { "\($0.element.name)=\($0.element.value)" }.joined(separator: "; ")
    }
}
