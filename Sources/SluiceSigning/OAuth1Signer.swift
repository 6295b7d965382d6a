import Foundation
import Sluice

/// OAuth 1.0a request signing (RFC 5849): HMAC-SHA1, HMAC-SHA256 or PLAINTEXT, in an
/// `Authorization: OAuth …` header.
///
/// The signature base string (§3.4.1) is the method, the base URL (scheme and host lowercased,
/// default port dropped, no query) and the normalised parameters: the query, an
/// `application/x-www-form-urlencoded` body, and the `oauth_*` parameters (never `realm` or
/// `oauth_signature`), encoded, sorted by name then value.
///
/// ```swift
/// import Sluice
/// import SluiceSigning
///
/// let signer = OAuth1Signer(configuration: .init(
///     consumerKey: "dpf43f3p2l4k3l03", consumerSecret: "kd94hf93k423kf44",
///     token: "nnch734d00sl2jdk", tokenSecret: "pfkkdhi9sl3r4s00"
/// ))
/// builder.add(SigningMiddleware(signer: signer))
/// ```
public struct OAuth1Signer: Signer {
    /// An OAuth 1.0a signature method.
    public enum Method: String, Sendable, Hashable {
        /// `HMAC-SHA1`.
        case hmacSHA1 = "HMAC-SHA1"
        /// `HMAC-SHA256`.
        case hmacSHA256 = "HMAC-SHA256"
        /// `PLAINTEXT` (over TLS only).
        case plaintext = "PLAINTEXT"
    }

    /// The consumer's and the token's keys and secrets, and the signature method.
    public struct Configuration: Sendable {
        /// The consumer key.
        public var consumerKey: String
        /// The consumer secret.
        public var consumerSecret: String
        /// The token, once there is one.
        public var token: String?
        /// The token's secret.
        public var tokenSecret: String?
        /// The signature method.
        public var method: Method
        /// `oauth_callback`, for a temporary-credentials request.
        public var callback: String?
        /// `oauth_verifier`, for a token request.
        public var verifier: String?
        /// `realm`, sent in the header but not signed.
        public var realm: String?
        /// Send `oauth_version="1.0"` (optional in RFC 5849, and then signed).
        public var includesVersion: Bool
        /// A fresh nonce per request (injectable for tests).
        public var nonce: @Sendable () -> String

        /// Settings with each value given, or its default.
        public init(
            consumerKey: String, consumerSecret: String, token: String? = nil, tokenSecret: String? = nil,
            method: Method = .hmacSHA1, callback: String? = nil, verifier: String? = nil, realm: String? = nil,
            includesVersion: Bool = false,
            nonce: @escaping @Sendable () -> String = { SigningText.uuidNonce(dashes: false) }
        ) {
            self.consumerKey = consumerKey
            self.consumerSecret = consumerSecret
            self.token = token
            self.tokenSecret = tokenSecret
            self.method = method
            self.callback = callback
            self.verifier = verifier
            self.realm = realm
            self.includesVersion = includesVersion
            self.nonce = nonce
        }
    }

    /// How it behaves.
    public let configuration: Configuration

    /// One with `configuration`.
    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// `request` with its `Authorization: OAuth …` header.
    public func sign(_ request: HTTPRequest, date: Date) throws(SluiceError) -> HTTPRequest {
        let oauth = oauthParameters(date: date)
        let signature = try self.signature(for: request, oauth: oauth)
        var fields = (configuration.realm.map { [("realm", $0)] } ?? []) + oauth + [("oauth_signature", signature)]
        fields = fields.map { ($0.0, SigningText.encode($0.1)) }
        var signed = request
        try signed.headers.set(name: "Authorization", value: "OAuth " + fields.map { "\($0.0)=\"\($0.1)\"" }.joined(separator: ", "))
        return signed
    }

    /// The consumer key with the token: whom the signatures speak for.
    public var identity: String? { "OAuth1 \(configuration.consumerKey) \(configuration.token ?? "")" }

    /// The signature base string of RFC 5849 §3.4.1, for debugging a mismatch.
    public func baseString(for request: HTTPRequest, date: Date) throws(SluiceError) -> String {
        try baseString(request, oauth: oauthParameters(date: date))
    }

    private func oauthParameters(date: Date) -> [(String, String)] {
        var oauth: [(String, String)] = [("oauth_consumer_key", configuration.consumerKey)]
        if let token = configuration.token { oauth.append(("oauth_token", token)) }
        oauth += [
            ("oauth_signature_method", configuration.method.rawValue),
            ("oauth_timestamp", String(Int(clamping: date.timeIntervalSince1970))), ("oauth_nonce", configuration.nonce()),
        ]
        if let callback = configuration.callback { oauth.append(("oauth_callback", callback)) }
        if let verifier = configuration.verifier { oauth.append(("oauth_verifier", verifier)) }
        if configuration.includesVersion { oauth.append(("oauth_version", "1.0")) }
        return oauth
    }

    private func baseString(_ request: HTTPRequest, oauth: [(String, String)]) throws(SluiceError) -> String {
        guard let scheme = request.url.scheme?.lowercased(), let host = request.url.host?.lowercased() else {
            throw SluiceError(.invalidURL, "\(request.redaction.url(request.url)) has no scheme or host to sign")
        }
        var base = scheme + "://" + host
        if let port = request.url.port, !((scheme == "http" && port == 80) || (scheme == "https" && port == 443)) {
            base += ":\(port)"
        }
        let path = URLComponents(url: request.url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? ""
        base += path.isEmpty ? "/" : path
        let all: [(String, String)] = SigningText.queryPairs(request.url) + SigningText.formPairs(request) + oauth
        let parameters = SigningText.normalized(all)
        return [request.method.rawValue.uppercased(), SigningText.encode(base), SigningText.encode(parameters)].joined(separator: "&")
    }

    private func signature(for request: HTTPRequest, oauth: [(String, String)]) throws(SluiceError) -> String {
        let key = SigningText.encode(configuration.consumerSecret) + "&" + SigningText.encode(configuration.tokenSecret ?? "")
        switch configuration.method {
        case .plaintext:
            return key
        case .hmacSHA1, .hmacSHA256:
            let digest: Digest = configuration.method == .hmacSHA1 ? .sha1 : .sha256
            return try digest.hmac(key: Data(key.utf8), Data(try baseString(request, oauth: oauth).utf8)).base64EncodedString()
        }
    }
}
