import Foundation

/// Which secrets logs, HAR files, "copy as curl" and the body snippets in error messages hide. On
/// by default; only ``Redaction/disabled`` (an explicit choice) shows everything.
///
/// It lives in the core because the core's own error messages quote bodies; `SluiceLogging`
/// uses the same type.
///
/// Hidden by default (names compared without case):
/// - the header fields `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`,
///   `X-Amz-Security-Token`, `X-Api-Key`, `Api-Key`, `X-Auth-Token`, `X-Access-Token` and
///   `X-Signature` (where `HMACParameterSigner` puts its signature by default);
/// - query, form and JSON parameters named `password`, `secret`, `token`, `sign`, `signature`,
///   `sig`, `api_key`, `apikey`, `access_token`, `refresh_token`, `id_token`, `client_secret`,
///   `code`, `session`, `auth`, `x-amz-signature`, `x-amz-credential` and `x-amz-security-token`;
/// - `key`, in a URL's query only (a JSON body's `key` is seldom a secret);
/// - a URL's user-info password (`https://ann:<redacted>@host/`).
///
/// ```swift
/// import Sluice
/// import SluiceLogging
///
/// let redaction = Redaction.default.adding(headers: ["X-Tenant-Secret"], parameters: ["pin"])
/// LoggingMiddleware(level: .headers, redaction: redaction)
/// ```
public struct Redaction: Sendable, Hashable {
    /// What a hidden value is replaced with.
    public static let placeholder = "<redacted>"

    /// Lowercased header names whose values are hidden.
    public var headerNames: Set<String> { names.headers }
    /// Lowercased parameter names whose values are hidden, in queries, forms and JSON.
    public var parameterNames: Set<String> { names.parameters }
    /// Lowercased names hidden in a URL's query only, beside ``parameterNames``.
    public var queryParameterNames: Set<String> { names.queryOnly }
    /// `false` only for ``disabled``.
    public let isEnabled: Bool
    /// The names, shared by every copy: a redaction is copied into each log call, and one
    /// reference costs less to copy than four collections.
    private let names: Names

    /// The names in the forms the scans use. Immutable, so sharing it between threads is safe.
    private final class Names: Sendable {
        let headers: Set<String>
        let parameters: Set<String>
        let queryOnly: Set<String>
        /// The names hidden in forms and JSON, and the (larger) set hidden in a URL's query.
        let form: ScanSet
        let query: ScanSet

        /// The last few unions made with this set: a stage adds the request's names to its own on
        /// every call, and both are nearly always the same few long-lived values. Holding the
        /// other set keeps its identity from being reused while it is remembered.
        private let unions = Locked<[(other: Names, union: Names)]>([])

        init(headers: Set<String>, parameters: Set<String>, queryOnly: Set<String>) {
            self.headers = Set(headers.map { $0.lowercased() })
            self.parameters = Set(parameters.map { $0.lowercased() })
            self.queryOnly = Set(queryOnly.map { $0.lowercased() })
            form = ScanSet(self.parameters)
            query = ScanSet(self.parameters.union(self.queryOnly))
        }

        /// Whether every name of `other` is here too.
        func contains(_ other: Names) -> Bool {
            other.headers.isSubset(of: headers) && other.parameters.isSubset(of: parameters) && other.queryOnly.isSubset(of: queryOnly)
        }

        /// The names of both: this set or `other` itself when one holds the other.
        func union(_ other: Names) -> Names {
            if let known = unions.withLock({ $0.first { $0.other === other }?.union }) { return known }
            let union =
                contains(other)
                ? self
                : other.contains(self)
                    ? other
                    : Names(
                        headers: headers.union(other.headers), parameters: parameters.union(other.parameters),
                        queryOnly: queryOnly.union(other.queryOnly))
            unions.withLock {
                if $0.count == 8 { $0.removeFirst() }
                $0.append((other, union))
            }
            return union
        }
    }

    /// Names in the forms the byte scans use.
    private struct ScanSet: Sendable {
        let names: Set<String>
        /// Bit n set when a name is n UTF-8 bytes long (bit 63: 63 or longer): a quick "cannot be
        /// hidden" test without hashing.
        let lengths: UInt64
        /// The names as bytes, for comparing without allocating.
        let bytes: [[UInt8]]

        init(_ names: Set<String>) {
            self.names = names
            lengths = names.reduce(0) { $0 | Self.lengthBit($1.utf8.count) }
            bytes = names.sorted().map { Array($0.utf8) }
        }

        static func lengthBit(_ count: Int) -> UInt64 { 1 << UInt64(min(count, 63)) }

        /// Whether some hidden name may be `count` bytes long.
        func mayHide(length count: Int) -> Bool { lengths & Self.lengthBit(count) != 0 }

        /// Whether `name` (lowercased or not) is hidden: `token`, and also `user[token]`.
        func hides(_ name: String) -> Bool {
            let lowered = name.lowercased()
            if names.contains(lowered) { return true }
            // A bracketed key such as user[password] or a[]: judge the innermost name.
            if let open = lowered.lastIndex(of: "["), lowered.hasSuffix("]") {
                return names.contains(String(lowered[lowered.index(after: open)..<lowered.index(before: lowered.endIndex)]))
            }
            return false
        }

        /// Whether plain (unescaped) name bytes equal a hidden name, ignoring ASCII case, without
        /// making a string.
        func matches(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
            bytes.contains { hidden in
                hidden.count == name.count
                    && zip(hidden, name).allSatisfy { pair in
                        let byte = pair.1 >= 0x41 && pair.1 <= 0x5A ? pair.1 | 0x20 : pair.1
                        return pair.0 == byte
                    }
            }
        }
    }

    /// Hides the values of these header fields and parameters, and of `queryParameterNames` in a
    /// URL's query only (names compared without case).
    public init(headerNames: Set<String>, parameterNames: Set<String>, queryParameterNames: Set<String> = []) {
        names = Names(headers: headerNames, parameters: parameterNames, queryOnly: queryParameterNames)
        isEnabled = true
    }

    private init(names: Names) {
        self.names = names
        isEnabled = true
    }

    private init(disabled: Void) {
        names = Names(headers: [], parameters: [], queryOnly: [])
        isEnabled = false
    }

    public static func == (lhs: Redaction, rhs: Redaction) -> Bool {
        lhs.isEnabled == rhs.isEnabled && lhs.headerNames == rhs.headerNames && lhs.parameterNames == rhs.parameterNames
            && lhs.queryParameterNames == rhs.queryParameterNames
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(isEnabled)
        hasher.combine(headerNames)
        hasher.combine(parameterNames)
        hasher.combine(queryParameterNames)
    }

    /// The defaults listed above.
    public static let `default` = Redaction(
        headerNames: [
            "authorization", "proxy-authorization", "cookie", "set-cookie", "x-amz-security-token", "x-api-key", "api-key", "x-auth-token",
            "x-access-token", "x-signature",
        ],
        parameterNames: [
            "signature", "sign", "token", "password", "secret", "sig", "api_key", "apikey", "access_token", "refresh_token",
            "id_token", "client_secret", "code", "session", "auth", "x-amz-signature", "x-amz-credential", "x-amz-security-token",
        ],
        queryParameterNames: ["key"]
    )

    /// Shows every value. Only for local debugging: logs travel further than you think.
    public static let disabled = Redaction(disabled: ())

    /// These names plus more.
    public func adding(headers: Set<String> = [], parameters: Set<String> = [], queryParameters: Set<String> = []) -> Redaction {
        guard isEnabled else { return self }
        return Redaction(
            headerNames: headerNames.union(headers), parameterNames: parameterNames.union(parameters),
            queryParameterNames: queryParameterNames.union(queryParameters)
        )
    }

    /// These names plus `other`'s: what a stage with a redaction of its own uses for a request,
    /// `stage.adding(request.redaction)`, so it never shows less than the request's policy. Adding
    /// to ``disabled`` gives ``disabled`` (an explicit choice, for that stage only), as
    /// ``adding(headers:parameters:queryParameters:)`` does; adding ``disabled`` adds nothing.
    ///
    /// ```swift
    /// import Sluice
    ///
    /// let client = Redaction.default.adding(parameters: ["pin"])
    /// let logger = Redaction.default.adding(headers: ["X-Tenant"])
    /// logger.adding(client).hidesParameter("pin")   // true
    /// logger.adding(client).hidesHeader("X-Tenant")  // true
    /// ```
    public func adding(_ other: Redaction) -> Redaction {
        guard isEnabled, other.isEnabled, other.names !== names else { return self }
        let union = names.union(other.names)
        return union === names ? self : Redaction(names: union)
    }

    /// `request` under this policy (a client's): the policy itself, plus what the request's own
    /// ``HTTPRequest/redaction`` adds when it was set to something else than the default. The
    /// common request, with the default and this policy already, is returned as it is.
    package func applied(to request: HTTPRequest) -> HTTPRequest {
        let own = request.redaction
        let policy = own.isSame(as: .default) ? self : adding(own)
        guard !policy.isSame(as: own) else { return request }
        var request = request
        request.redaction = policy
        return request
    }

    /// Whether both are the same value by identity (a cheap test, for the paths every call takes).
    package func isSame(as other: Redaction) -> Bool {
        isEnabled == other.isEnabled && names === other.names
    }

    /// Whether the header field `name` is hidden.
    public func hidesHeader(_ name: String) -> Bool {
        isEnabled && names.headers.contains(name.lowercased())
    }

    /// ``hidesHeader(_:)`` for a name already in lowercase.
    package func hidesHeader(lowercased name: String) -> Bool {
        isEnabled && names.headers.contains(name)
    }

    /// Whether the parameter `name` is hidden in a form or JSON body (`token`, and also
    /// `user[token]`).
    public func hidesParameter(_ name: String) -> Bool {
        isEnabled && names.form.hides(name)
    }

    /// Whether the parameter `name` is hidden in a URL's query: the body's names and
    /// ``queryParameterNames``.
    public func hidesQueryParameter(_ name: String) -> Bool {
        isEnabled && names.query.hides(name)
    }

    /// A JSON key is hidden when it is a hidden parameter or header name (an echo of the request's
    /// `Authorization` field, for example).
    func hidesKey(_ key: String) -> Bool {
        hidesParameter(key) || hidesHeader(key)
    }

    /// The field value as it may be shown.
    public func value(ofHeader name: String, _ value: String) -> String {
        if hidesHeader(name) { return Self.placeholder }
        // Fields whose value is a URL show it as a URL is shown: a redirect's Location carries
        // the next hop's query, secrets included.
        guard isEnabled, Self.urlFields.contains(name.lowercased()) else { return value }
        return url(text: value)
    }

    /// Header fields whose value is a URL reference.
    static let urlFields: Set<String> = ["location", "content-location", "referer"]

    /// `url` with hidden query values and any user-info password replaced; the rest kept byte for
    /// byte. When nothing is hidden (the common case) this is `url.absoluteString` itself, found
    /// with one byte scan.
    ///
    /// ```swift
    /// import Foundation
    /// import Sluice
    ///
    /// Redaction.default.url(URL(string: "https://ann:pw@api.example.com/x?token=T&page=2")!)
    /// // "https://ann:<redacted>@api.example.com/x?token=<redacted>&page=2"
    /// ```
    public func url(_ url: URL) -> String {
        self.url(text: url.absoluteString)
    }

    /// A request line, `METHOD TARGET VERSION`, with its target's secrets hidden as ``url(text:)``
    /// hides them; a line of another shape is returned as it is. `package`: for the logger and the
    /// `sluice` command, which show the head a transport recorded.
    ///
    /// ```swift
    /// Redaction.default.requestLine("GET /x?token=T&page=2 HTTP/1.1")   // "GET /x?token=<redacted>&page=2 HTTP/1.1"
    /// ```
    package func requestLine(_ line: String) -> String {
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        return parts.count == 3 ? "\(parts[0]) \(url(text: parts[1])) \(parts[2])" : line
    }

    /// A URL reference given as text (absolute or relative, as in a `Location` field), hidden the
    /// way ``url(_:)`` hides a URL's secrets.
    ///
    /// ```swift
    /// import Sluice
    ///
    /// Redaction.default.url(text: "/next?page=2&token=T")   // "/next?page=2&token=<redacted>"
    /// ```
    public func url(text: String) -> String {
        var text = text
        if isEnabled, text.withUTF8({ Self.index(of: UInt8(ascii: "@"), in: $0, from: 0) != nil }) {
            text = Self.hidingPassword(in: text)
        }
        guard let query = hiddenQuery(&text) else { return text }
        let utf8 = text.utf8
        let queryStart = utf8.index(utf8.startIndex, offsetBy: query.lowerBound)
        let fragmentStart = utf8.index(utf8.startIndex, offsetBy: query.upperBound)
        guard let redacted = redactedForm(text[queryStart..<fragmentStart], names: names.query) else { return text }
        return text[..<queryStart] + redacted + text[fragmentStart...]
    }

    /// `text` with the password of its authority's user-info (`//user:password@`) replaced. A URL
    /// without an `@` (nearly all) never comes here: ``url(text:)`` looks for one with memchr,
    /// where the UTF-8 view's `contains` cost 25 instructions a byte.
    private static func hidingPassword(in text: String) -> String {
        guard let scheme = text.range(of: "://") else { return text }
        let authorityEnd = text[scheme.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        let authority = text[scheme.upperBound..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return text }
        return String(text[..<text.index(after: colon)]) + placeholder + String(text[at...])
    }

    /// Whether `url`'s query has a parameter this redaction hides: the same one byte scan as
    /// ``url(_:)``, for callers that only need to know (a cache key made without secrets).
    public func hidesAnyParameter(in url: URL) -> Bool {
        var text = url.absoluteString
        return hiddenQuery(&text) != nil
    }

    /// The byte range of `text`'s query when a parameter in it is hidden, else nil.
    private func hiddenQuery(_ text: inout String) -> Range<Int>? {
        guard isEnabled else { return nil }
        return text.withUTF8 { bytes -> Range<Int>? in
            guard let question = Self.index(of: UInt8(ascii: "?"), in: bytes, from: 0) else { return nil }
            let end = Self.index(of: UInt8(ascii: "#"), in: bytes, from: question + 1) ?? bytes.count
            return hidesAny(UnsafeBufferPointer(rebasing: bytes[(question + 1)..<end]), names: names.query) ? (question + 1)..<end : nil
        }
    }

    /// A `name=value&…` form body with hidden values replaced; names and order kept.
    public func form(_ query: String) -> String {
        redactedForm(query[...], names: names.form) ?? query
    }

    /// The form with hidden values replaced, or `nil` when nothing is hidden (the common case,
    /// kept cheap: byte scans, no Foundation string search).
    private func redactedForm(_ query: Substring, names: ScanSet) -> String? {
        guard isEnabled, !query.isEmpty, hidesAny(query, names: names) else { return nil }
        let pairs = query.split(separator: "&", omittingEmptySubsequences: false)
        var hidden: [Int] = []
        for (index, pair) in pairs.enumerated() {
            guard let equals = pair.utf8.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = pair[..<equals]
            let escaped = name.utf8.contains { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "[") }
            // Most names are plainly not secret: no escapes, and no hidden name has their length.
            if !escaped && !names.mayHide(length: name.utf8.count) { continue }
            var decoded = String(name)
            if escaped {
                decoded = PercentEncoding.decode(decoded, plusIsSpace: true) ?? decoded
            }
            if names.hides(decoded) { hidden.append(index) }
        }
        guard !hidden.isEmpty else { return nil }
        var parts = pairs.map(String.init)
        for index in hidden {
            let pair = pairs[index]
            parts[index] = pair[..<pair.utf8.firstIndex(of: UInt8(ascii: "="))!] + "=" + Self.placeholder
        }
        return parts.joined(separator: "&")
    }

    /// Whether any parameter of the form is hidden: one pass over the bytes, no allocation for
    /// names that cannot be hidden.
    private func hidesAny(_ query: Substring, names: ScanSet) -> Bool {
        var query = query
        return query.withUTF8 { hidesAny($0, names: names) }
    }

    /// One pass: at each `=` that ends a name, the name is judged; names with no hidden name's
    /// length and no escapes are dismissed without making a string.
    private func hidesAny(_ bytes: UnsafeBufferPointer<UInt8>, names: ScanSet) -> Bool {
        var nameStart = 0
        var inName = true
        var escaped = false
        for index in 0..<bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "&"):
                nameStart = index + 1
                inName = true
                escaped = false
            case UInt8(ascii: "=") where inName:
                inName = false
                let name = UnsafeBufferPointer(rebasing: bytes[nameStart..<index])
                if escaped {
                    let raw = String(decoding: name, as: UTF8.self)
                    let decoded = PercentEncoding.decode(raw, plusIsSpace: true) ?? raw
                    if names.hides(decoded) { return true }
                } else if names.mayHide(length: name.count), names.matches(name) {
                    return true
                }
            case UInt8(ascii: "%"), UInt8(ascii: "+"), UInt8(ascii: "["):
                escaped = escaped || inName
            default:
                break
            }
        }
        return false
    }

    /// The first index at or after `start` holding `byte` (`memchr`, which scans a word at a time).
    private static func index(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = bytes.baseAddress, start < bytes.count,
            let found = memchr(base + start, Int32(byte), bytes.count - start)
        else { return nil }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
    }

    /// A decoded JSON value with the values of hidden keys (parameter or header names) replaced, at
    /// any depth.
    public func json(_ value: Any) -> Any {
        guard isEnabled else { return value }
        if let object = value as? [String: Any] {
            var copy: [String: Any] = [:]
            for (key, inner) in object { copy[key] = hidesKey(key) ? Self.placeholder : json(inner) }
            return copy
        }
        if let array = value as? [Any] { return array.map { json($0) } }
        return value
    }

    /// Whether a decoded JSON value has a key whose value ``json(_:)`` would hide.
    public func hidesAnyKey(in value: Any) -> Bool {
        guard isEnabled else { return false }
        if let object = value as? [String: Any] {
            return object.contains { hidesKey($0.key) || hidesAnyKey(in: $0.value) }
        }
        if let array = value as? [Any] { return array.contains { hidesAnyKey(in: $0) } }
        return false
    }

    /// How many body bytes ``snippet(of:contentType:)`` shows.
    public static let snippetLimit = 200

    /// The start of a body for an error message: JSON with hidden keys re-written with their
    /// values hidden, a form with hidden parameters hidden, other text as it is; control
    /// characters escaped, quoted, cut at ``snippetLimit`` bytes with the full size said.
    ///
    /// ```swift
    /// import Foundation
    /// import Sluice
    ///
    /// Redaction.default.snippet(of: Data(#"{"token":"abc","user":"ann"}"#.utf8), contentType: "application/json")
    /// // "{\"token\":\"<redacted>\",\"user\":\"ann\"}"
    /// ```
    public func snippet(of body: Data, contentType: String?) -> String {
        if body.isEmpty { return "(empty)" }
        var shown = body
        let type = contentType?.lowercased() ?? ""
        if isEnabled, type.contains("json") || type.isEmpty, body.count <= 1 << 20,
            let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]),
            hidesAnyKey(in: object),
            let redacted = try? JSONSerialization.data(withJSONObject: json(object), options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
        {
            shown = redacted
        } else if isEnabled, type.hasPrefix("application/x-www-form-urlencoded"), let text = String(data: body, encoding: .utf8) {
            shown = Data(form(text).utf8)
        }
        let text = String(decoding: shown.prefix(Self.snippetLimit), as: UTF8.self)
        // Quoted as Swift does, then C1 and bidirectional controls too, which it lets through.
        var escaped = TerminalText.escape(String(reflecting: text))
        if shown.count > Self.snippetLimit { escaped += "… (\(body.count) bytes in all)" }
        return escaped
    }
}
