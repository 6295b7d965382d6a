import Foundation
import Sluice

#if canImport(Glibc)
    import Glibc
#endif

/// AWS Signature Version 4, by AWS's published specification: header signing and presigned URLs.
///
/// - The canonical URI is the path, percent-decoded, normalised (`.` and `..` removed, empty
///   segments dropped; on by default, off for S3), then each segment encoded once (RFC 3986).
/// - The canonical query sorts the encoded parameters by name, then value.
/// - Every header of the request is signed (but `User-Agent`, `Expect`, `Authorization` and
///   `X-Amzn-Trace-Id`), plus `Host`; names lowercased, values trimmed with inner runs of spaces
///   collapsed, repeated fields joined with commas.
/// - The payload hash is the SHA-256 of an in-memory body, or `UNSIGNED-PAYLOAD` (when configured,
///   and always for file and stream bodies). S3 wants it in `X-Amz-Content-Sha256` too.
///
/// ```swift
/// import Foundation
/// import SluiceSigning
///
/// let signer = AWSSigV4Signer(accessKeyID: "AKID…", secretAccessKey: "…", sessionToken: nil,
///                             region: "us-east-1", service: "execute-api")
/// let signed = try signer.sign(request, date: Date())
/// print(try signer.canonicalRequest(for: request, date: Date()))     // to debug a mismatch
/// let url = try signer.presign(request, date: Date(), expires: 3600)
/// ```
public struct AWSSigV4Signer: Signer {
    /// Details that vary between services.
    public struct Options: Sendable, Hashable {
        /// Normalise the path (every service but S3).
        public var normalizesPath: Bool
        /// Sign `UNSIGNED-PAYLOAD` instead of the body's hash.
        public var unsignedPayload: Bool
        /// Send the payload hash in `X-Amz-Content-Sha256` (S3 requires it).
        public var addsContentSHA256Header: Bool

        /// Options with each value given, or its default.
        public init(normalizesPath: Bool = true, unsignedPayload: Bool = false, addsContentSHA256Header: Bool = false) {
            self.normalizesPath = normalizesPath
            self.unsignedPayload = unsignedPayload
            self.addsContentSHA256Header = addsContentSHA256Header
        }

        /// Most services.
        public static let `default` = Options()
        /// S3: the path as it is, the payload hash in `X-Amz-Content-Sha256`.
        public static let s3 = Options(normalizesPath: false, unsignedPayload: false, addsContentSHA256Header: true)
    }

    /// The access key's id.
    public let accessKeyID: String
    let secretAccessKey: String
    /// A session token from temporary credentials, sent as `X-Amz-Security-Token`.
    public let sessionToken: String?
    /// The AWS region (`eu-west-1`).
    public let region: String
    /// The AWS service (`execute-api`, `s3`).
    public let service: String
    /// How requests are signed.
    public let options: Options

    /// A signer for `service` in `region` with these credentials.
    public init(
        accessKeyID: String, secretAccessKey: String, sessionToken: String?, region: String, service: String,
        options: Options = .default
    ) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.region = region
        self.service = service
        self.options = options
    }

    static let unsignedPayload = "UNSIGNED-PAYLOAD"
    static let ignoredHeaders: Set<String> = ["user-agent", "expect", "authorization", "x-amzn-trace-id"]

    /// `request` with `Authorization` and `X-Amz-Date` (replacing any), plus
    /// `X-Amz-Security-Token` with a session token and `X-Amz-Content-Sha256` when configured.
    public func sign(_ request: HTTPRequest, date: Date) throws(SluiceError) -> HTTPRequest {
        let prepared = try prepare(request, date: date)
        let (canonical, signedHeaders) = try canonical(prepared, payloadHash: try payloadHash(prepared))
        let signature = try sign(stringToSign(canonical: canonical, date: date), date: date)
        var signed = prepared
        try signed.headers.set(
            name: "Authorization",
            value: "AWS4-HMAC-SHA256 Credential=\(accessKeyID)/\(scope(date)), SignedHeaders=\(signedHeaders), Signature=\(signature)"
        )
        return signed
    }

    /// The access key ID with its region and service: whom the signatures speak for.
    public var identity: String? { "AWS4 \(accessKeyID) \(region) \(service)" }

    /// `authorization` and `x-amz-date`, with `x-amz-security-token` for a session and
    /// `x-amz-content-sha256` when ``Options-swift.struct/addsContentSHA256Header`` is set.
    public var addedFields: Set<String> {
        var fields: Set<String> = ["authorization", "x-amz-date"]
        if sessionToken != nil { fields.insert("x-amz-security-token") }
        if options.addsContentSHA256Header { fields.insert("x-amz-content-sha256") }
        return fields
    }

    /// A URL that carries its own signature in the query (`X-Amz-Signature`), valid for `expires`
    /// seconds; only `Host` is signed and the payload is `UNSIGNED-PAYLOAD`.
    ///
    /// - Throws: `.invalidURL` when the request's URL has no host; `.invalidBody` for `expires`
    ///   outside 1…604,800 (seven days, AWS's limit).
    public func presign(_ request: HTTPRequest, date: Date, expires: Int) throws(SluiceError) -> URL {
        guard (1...604_800).contains(expires) else {
            throw SluiceError(.invalidBody, "a presigned URL must expire in 1 to 604800 seconds, not \(expires)")
        }
        guard var components = URLComponents(url: request.url, resolvingAgainstBaseURL: true), components.host != nil else {
            throw SluiceError(.invalidURL, "\(request.redaction.url(request.url)) has no host to sign")
        }
        var query = SigningText.queryPairs(request.url).filter { $0.0 != "X-Amz-Signature" }
        query += [
            ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"), ("X-Amz-Credential", "\(accessKeyID)/\(scope(date))"),
            ("X-Amz-Date", Self.timestamp(date)), ("X-Amz-Expires", String(expires)), ("X-Amz-SignedHeaders", "host"),
        ]
        if let sessionToken { query.append(("X-Amz-Security-Token", sessionToken)) }
        let canonicalQuery = Self.canonicalQuery(query)
        let canonical = [
            request.method.rawValue, canonicalURI(request.url), canonicalQuery, "host:" + Self.host(request.url), "",
            "host", Self.unsignedPayload,
        ].joined(separator: "\n")
        let signature = try sign(stringToSign(canonical: canonical, date: date), date: date)
        components.percentEncodedQuery = canonicalQuery + "&X-Amz-Signature=" + signature
        guard let url = components.url else {
            throw SluiceError(.invalidURL, "the presigned URL for \(request.redaction.url(request.url)) could not be built")
        }
        return url
    }

    // MARK: The steps, for debugging a mismatch

    /// The canonical request AWS will compute for `request` signed at `date` (task 1 of the spec).
    public func canonicalRequest(for request: HTTPRequest, date: Date) throws(SluiceError) -> String {
        let prepared = try prepare(request, date: date)
        return try canonical(prepared, payloadHash: try payloadHash(prepared)).canonical
    }

    /// The string to sign (task 2): algorithm, timestamp, scope, hash of the canonical request.
    public func stringToSign(for request: HTTPRequest, date: Date) throws(SluiceError) -> String {
        try stringToSign(canonical: try canonicalRequest(for: request, date: date), date: date)
    }

    // MARK: Internals

    private func prepare(_ request: HTTPRequest, date: Date) throws(SluiceError) -> HTTPRequest {
        guard request.url.host != nil else {
            throw SluiceError(.invalidURL, "\(request.redaction.url(request.url)) has no host to sign")
        }
        var prepared = request
        try prepared.headers.set(name: "X-Amz-Date", value: Self.timestamp(date))
        if let sessionToken { try prepared.headers.set(name: "X-Amz-Security-Token", value: sessionToken) }
        if options.addsContentSHA256Header {
            try prepared.headers.set(name: "X-Amz-Content-Sha256", value: try payloadHash(request))
        }
        return prepared
    }

    private func payloadHash(_ request: HTTPRequest) throws(SluiceError) -> String {
        if options.unsignedPayload { return Self.unsignedPayload }
        guard let body = SigningText.body(request) else { return Self.unsignedPayload }
        return try Digest.sha256.hash(body).hex
    }

    private func canonical(_ request: HTTPRequest, payloadHash: String) throws(SluiceError) -> (canonical: String, signedHeaders: String) {
        // The `Host` curl sends: the caller's own field when there is one, else the URL's.
        var headers: [String: [String]] = ["host": [request.headers["Host"].map(Self.collapsed) ?? Self.host(request.url)]]
        for field in request.headers {
            let name = field.name.lowercased()
            if Self.ignoredHeaders.contains(name) || name == "host" { continue }
            headers[name, default: []].append(Self.collapsed(field.value))
        }
        let names = headers.keys.sorted()
        let canonicalHeaders = names.map { $0 + ":" + headers[$0]!.joined(separator: ",") + "\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let canonical = [
            request.method.rawValue, canonicalURI(request.url), Self.canonicalQuery(SigningText.queryPairs(request.url)),
            canonicalHeaders, signedHeaders, payloadHash,
        ].joined(separator: "\n")
        return (canonical, signedHeaders)
    }

    private func canonicalURI(_ url: URL) -> String {
        let encodedPath = (url.baseURL == nil ? url : url.absoluteURL).path(percentEncoded: true)
        var segments = encodedPath.split(separator: "/", omittingEmptySubsequences: false)
            .map { PercentEncoding.decode($0) ?? String($0) }
        if options.normalizesPath {
            var kept: [String] = []
            for segment in segments.dropFirst() {
                switch segment {
                case ".", "": continue
                case "..": if !kept.isEmpty { kept.removeLast() }
                default: kept.append(segment)
                }
            }
            let trailing = encodedPath.count > 1 && encodedPath.hasSuffix("/") && !kept.isEmpty
            return "/" + kept.map { SigningText.encode($0) }.joined(separator: "/") + (trailing ? "/" : "")
        }
        if segments.first == "" { segments.removeFirst() }
        return "/" + segments.map { SigningText.encode($0) }.joined(separator: "/")
    }

    static func canonicalQuery(_ pairs: [(String, String)]) -> String {
        SigningText.normalized(pairs)
    }

    private func stringToSign(canonical: String, date: Date) throws(SluiceError) -> String {
        "AWS4-HMAC-SHA256\n\(Self.timestamp(date))\n\(scope(date))\n\(try Digest.sha256.hash(Data(canonical.utf8)).hex)"
    }

    private func sign(_ stringToSign: String, date: Date) throws(SluiceError) -> String {
        try Digest.sha256.hmac(key: try signingKey(date), Data(stringToSign.utf8)).hex
    }

    /// kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request").
    func signingKey(_ date: Date) throws(SluiceError) -> Data {
        var key = Data(("AWS4" + secretAccessKey).utf8)
        for part in [Self.day(date), region, service, "aws4_request"] {
            key = try Digest.sha256.hmac(key: key, Data(part.utf8))
        }
        return key
    }

    private func scope(_ date: Date) -> String { "\(Self.day(date))/\(region)/\(service)/aws4_request" }

    /// `20150830T123600Z` (UTC).
    static func timestamp(_ date: Date) -> String {
        var time = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y%m%dT%H%M%SZ", &parts)
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func day(_ date: Date) -> String { String(timestamp(date).prefix(8)) }

    /// `host[:port]`, the port only when it is not the scheme's default, the host as curl sends
    /// it (`127.1` is `127.0.0.1`): signed alone, with no transport to ask, a request is still
    /// signed for the host that goes on the wire.
    static func host(_ url: URL) -> String {
        var host = url.hostAsSent ?? ""
        // An IPv6 literal goes in `Host` in brackets, as curl sends it.
        if host.contains(":"), !host.hasPrefix("[") { host = "[" + host + "]" }
        guard let port = url.port else { return host }
        let isDefault = (url.scheme == "https" && port == 443) || (url.scheme == "http" && port == 80)
        return isDefault ? host : "\(host):\(port)"
    }

    /// A header value trimmed, with every run of spaces and tabs made one space.
    static func collapsed(_ value: String) -> String {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }
}
