import Foundation
import Sluice

// The cache's keys, and the request as it will really be sent, which keys and `Vary` are made from.
extension CacheMiddleware {
    /// The key of `request`: the method (HEAD reads GET's) and the URL without ignored query items,
    /// secret parameters fingerprinted (``Configuration/redaction``); a caller-set `Host` field that
    /// names another host than the URL's (the server answers for that host); for a cached POST,
    /// `POST`, the URL and the SHA-256 of the body.
    public func key(for request: HTTPRequest) -> String {
        key(for: request, url: request.url)
    }

    /// The key of `request` sent to `url` (the request's URL as the transport writes it).
    func key(for request: HTTPRequest, url sentURL: URL) -> String {
        var sent = request
        sent.url = sentURL
        var url = keyURL(sent)
        if let host = Self.otherHost(request) { url += " host=" + host }
        if request.method == .post, let body = postBody(request), let digest = SHA256.hex(body) {
            return "POST " + url + " " + digest
        }
        return "GET " + url
    }

    /// The request's `Host` field, lowercased, when it differs from the URL's authority (with the
    /// port when the URL has one); nil when it is absent or the same.
    static func otherHost(_ request: HTTPRequest) -> String? {
        guard let field = request.headers["Host"]?.lowercased(), !field.isEmpty else { return nil }
        let host = request.url.host?.lowercased() ?? ""
        let authority = request.url.port.map { host + ":\($0)" } ?? host
        return field == authority || field == host && request.url.port == nil ? nil : field
    }

    /// The body of a POST that may be cached: in memory, so it can be hashed without being used up.
    func postBody(_ request: HTTPRequest) -> Data? {
        switch request.body {
        case .empty: return Data()
        case .bytes(let data): return data
        default: return nil
        }
    }

    /// The URL as keys and stored entries show it: without ignored query items or a fragment, and
    /// with secret parameter values and any user-info password replaced by fingerprints.
    func keyURL(_ request: HTTPRequest) -> String {
        var url = request.url.absoluteString
        let redaction = configuration.redaction.adding(request.redaction)
        // One byte scan: a URL with no secret parameter (nearly all) is not parsed.
        let mayHideQuery = redaction.hidesAnyParameter(in: request.url)
        let hasPassword = redaction.isEnabled && request.url.password != nil
        if !configuration.ignoredQueryItems.isEmpty || mayHideQuery || hasPassword,
            var components = URLComponents(string: url)
        {
            if let items = components.percentEncodedQueryItems {
                var kept = items.filter { !configuration.ignoredQueryItems.contains(PercentEncoding.decode($0.name) ?? $0.name) }
                for index in kept.indices where mayHideQuery {
                    if let value = kept[index].value, redaction.hidesQueryParameter(PercentEncoding.decode(kept[index].name) ?? kept[index].name) {
                        kept[index].value = Self.fingerprint(value)
                    }
                }
                components.percentEncodedQueryItems = kept.isEmpty ? nil : kept
            }
            if hasPassword, let password = components.percentEncodedPassword {
                components.percentEncodedPassword = Self.fingerprint(password)
            }
            url = components.string ?? url
        }
        if let fragment = url.utf8.firstIndex(of: UInt8(ascii: "#")) { url = String(url[..<fragment]) }
        return url
    }

    /// `sha256:` and the first 32 hex digits of the SHA-256 of `secret`: distinct secrets stay
    /// distinct keys, and the store never holds the secret itself.
    static func fingerprint(_ secret: String) -> String {
        "sha256:" + (SHA256.hex(Data(secret.utf8)).map { String($0.prefix(32)) } ?? "")
    }

    /// `request` as it will really be sent, for matching and recording `Vary` and for the rules
    /// of storing: its URL as the transport writes it, the `Cookie` field it will carry (its own
    /// and the transport's jar's), and for each field a stage below will set with credentials
    /// (`CredentialSource`) a stand-in naming whose they are (the SHA-256 of the
    /// identity, or a value no other request has when the stage cannot tell), so an answer that
    /// varies on `Authorization` is never served to another identity. A request that will carry
    /// credentials is marked so, for the shared-cache rule of RFC 9111 §3.5.
    static func asSent(_ request: HTTPRequest, url: URL, _ context: RequestContext, credentials: [AddedCredentials]) -> HTTPRequest {
        var seen = request
        seen.url = url
        if context.cookieSource != nil, let cookie = context.cookieField(for: seen), cookie != request.headers["Cookie"] {
            try? seen.headers.set(name: "Cookie", value: cookie)
        }
        guard !credentials.isEmpty else { return seen }
        seen.options[CredentialsAddedBelowKey.self] = true
        for added in credentials {
            let standIn = "credentials " + (added.identity.map(fingerprint) ?? "unknown-" + UUID().uuidString)
            for name in added.fields {
                try? seen.headers.set(name: name, value: standIn)
                seen.credentialFields.insert(name)
            }
        }
        return seen
    }
}
