import Sluice

/// The directives of `Cache-Control` fields (RFC 9111 §5.2, RFC 5861, RFC 8246), parsed leniently.
///
/// - Every `Cache-Control` field line is read, as one list.
/// - Names are case-insensitive; unknown directives are ignored (and kept in ``extensions``).
/// - Arguments may be tokens or quoted strings (`max-age="60"` is read as 60, as RFC 9111 §5.2
///   asks recipients to accept); a quoted list (`no-cache="Set-Cookie, X-A"`) gives field names.
/// - A repeated directive keeps its first occurrence (RFC 9111 §4.2.1).
/// - An invalid `max-age` or `s-maxage` (not digits) reads as 0: the response is stale, as RFC 9111
///   §4.2.1 allows for invalid freshness information. Other invalid arguments are ignored.
/// - Values too large for a cache to represent become 2,147,483,648 seconds (RFC 9111 §1.2.2).
///
/// ```swift
/// import Sluice
/// import SluiceCache
///
/// let directives = CacheControl(#"max-age=60, no-cache="Set-Cookie", Private"#)
/// directives.maxAge              // 60
/// directives.noCacheFields       // ["Set-Cookie"]
/// directives.isPrivate           // true
/// CacheControl(response.headers).mustRevalidate
/// ```
public struct CacheControl: Sendable, Hashable {
    /// `max-age`: in a response, the freshness lifetime; in a request, the oldest acceptable age.
    public var maxAge: Int?
    /// `s-maxage`: a shared cache's freshness lifetime.
    public var sharedMaxAge: Int?
    /// `max-stale` in a request: `.some(nil)` accepts any staleness, `.some(n)` up to n seconds.
    public var maxStale: Int??
    /// `min-fresh` in a request: the response must stay fresh at least this long.
    public var minFresh: Int?
    /// `no-cache`: never serve a stored copy without validating it first.
    public var noCache = false
    /// The field names of a qualified `no-cache="…"` (only those fields need validation).
    public var noCacheFields: [String] = []
    /// `no-store`: do not store the request or the response.
    public var noStore = false
    /// `no-transform`.
    public var noTransform = false
    /// `only-if-cached` in a request: answer from the cache or with 504.
    public var onlyIfCached = false
    /// `must-revalidate`: once stale, never serve without validating.
    public var mustRevalidate = false
    /// `proxy-revalidate`: `must-revalidate` for shared caches.
    public var proxyRevalidate = false
    /// `must-understand`.
    public var mustUnderstand = false
    /// `private`: only a private cache may store the response.
    public var isPrivate = false
    /// The field names of a qualified `private="…"`.
    public var privateFields: [String] = []
    /// `public`: any cache may store it, even when it would not be stored otherwise.
    public var isPublic = false
    /// `immutable` (RFC 8246): a fresh response will not change; do not revalidate it on reload.
    public var immutable = false
    /// `stale-while-revalidate` (RFC 5861): serve stale for this long while revalidating.
    public var staleWhileRevalidate: Int?
    /// `stale-if-error` (RFC 5861): serve stale for this long when the origin fails.
    public var staleIfError: Int?
    /// Directives this type does not know, lowercased, with their argument if any.
    public var extensions: [String: String?] = [:]

    /// The largest delta-seconds a cache must represent (RFC 9111 §1.2.2).
    package static let maximumDeltaSeconds = 2_147_483_648

    /// Whether these directives came from a targeted field (RFC 9213) rather than `Cache-Control`.
    public var isTargeted = false

    /// No directives.
    public init() {}

    /// Whether `value` is a structured-field dictionary (RFC 8941 §3.2) as a targeted field must be
    /// (RFC 9213 §2.1): lowercase keys, each bare or with an integer, decimal, token, string or
    /// boolean value, separated by commas.
    package static func isValidDictionary(_ value: String) -> Bool {
        let members = value.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingOptionalWhitespace() }
        guard !members.isEmpty else { return false }
        for member in members {
            guard let pair = member.split(separator: ";", maxSplits: 1).first, !pair.isEmpty else { return false }
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = parts.first, let first = key.first, first.isLowercase || first == "*",
                key.allSatisfy({ ($0.isASCII && ($0.isLowercase || $0.isNumber)) || "_-.*".contains($0) })
            else { return false }
            guard parts.count == 2 else { continue }
            let item = parts[1]
            let isInteger =
                item.first.map { $0 == "-" || $0.isNumber } == true
                && item.dropFirst(item.first == "-" ? 1 : 0).allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") })
            let isString = item.count >= 2 && item.first == "\"" && item.last == "\""
            let isBoolean = item == "?0" || item == "?1"
            let isToken = item.first.map { $0.isLetter || $0 == "*" } == true && item.allSatisfy({ $0.isASCII && !$0.isWhitespace && !",;=\"".contains($0) })
            guard isInteger || isString || isBoolean || isToken else { return false }
        }
        return true
    }

    /// The directives of every `Cache-Control` field in `headers`.
    public init(_ headers: HTTPFields) {
        self.init(headers.values(for: "Cache-Control").joined(separator: ","))
    }

    /// The directives of one field value (or several joined with commas).
    public init(_ value: String) {
        if let known = Self.recent.withLock({ $0[value] }) {
            self = known
            return
        }
        var seen = Set<String>()
        for (name, argument) in Self.directives(in: value) where seen.insert(name).inserted {
            apply(name, argument)
        }
        if value.utf8.count <= Self.recentValueLength {
            Self.recent.withLock { recent in
                if recent.count >= Self.recentCapacity { recent.removeAll(keepingCapacity: true) }
                recent[value] = self
            }
        }
    }

    /// Values read lately and what they parse to: a client sees the same few values again and
    /// again (`no-store`, `max-age=60`), and a lookup costs a tenth of a parse. Short values only,
    /// at most `recentCapacity` of them (emptied when full), so a server cannot make it grow.
    private static let recent = Locked<[String: CacheControl]>([:])
    private static let recentCapacity = 64
    private static let recentValueLength = 160

    /// Whether no directive at all was given.
    public var isEmpty: Bool { self == CacheControl() }

    private mutating func apply(_ name: String, _ argument: String?) {
        switch name {
        case "max-age": maxAge = Self.freshnessSeconds(argument)
        case "s-maxage": sharedMaxAge = Self.freshnessSeconds(argument)
        case "max-stale":
            if let argument {
                if let seconds = Self.deltaSeconds(argument) { maxStale = .some(seconds) }
            } else {
                maxStale = .some(nil)
            }
        case "min-fresh": minFresh = argument.flatMap(Self.deltaSeconds)
        case "no-cache":
            noCache = true
            noCacheFields = argument.map(Self.fieldNames) ?? []
        case "no-store": noStore = true
        case "no-transform": noTransform = true
        case "only-if-cached": onlyIfCached = true
        case "must-revalidate": mustRevalidate = true
        case "proxy-revalidate": proxyRevalidate = true
        case "must-understand": mustUnderstand = true
        case "private":
            isPrivate = true
            privateFields = argument.map(Self.fieldNames) ?? []
        case "public": isPublic = true
        case "immutable": immutable = true
        case "stale-while-revalidate": staleWhileRevalidate = argument.flatMap(Self.deltaSeconds)
        case "stale-if-error": staleIfError = argument.flatMap(Self.deltaSeconds)
        default: extensions[name] = argument
        }
    }

    /// A freshness argument: its seconds, or 0 when it is missing or not digits (stale).
    private static func freshnessSeconds(_ argument: String?) -> Int {
        argument.flatMap(deltaSeconds) ?? 0
    }

    /// `delta-seconds = 1*DIGIT`, capped at ``maximumDeltaSeconds``; nil when not digits.
    static func deltaSeconds(_ text: String) -> Int? {
        let digits = text.utf8
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var value = 0
        for digit in digits {
            value = value * 10 + Int(digit - 0x30)
            if value >= maximumDeltaSeconds { return maximumDeltaSeconds }
        }
        return value
    }

    /// The field names of a quoted list argument: `"Set-Cookie, X-A"`.
    private static func fieldNames(_ argument: String) -> [String] {
        argument.split(separator: ",").map { $0.trimmingOptionalWhitespace() }.filter { !$0.isEmpty }
    }

    /// `name[=argument]` pairs of a comma-separated list; names lowercased, quoted arguments
    /// unquoted (backslash escapes resolved). Commas inside quotes do not split.
    static func directives(in value: String) -> [(name: String, argument: String?)] {
        var result: [(String, String?)] = []
        let bytes = Array(value.utf8)
        var index = 0
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        func trimmed(_ range: Range<Int>) -> String {
            var lower = range.lowerBound, upper = range.upperBound
            while lower < upper && isSpace(bytes[lower]) { lower += 1 }
            while upper > lower && isSpace(bytes[upper - 1]) { upper -= 1 }
            return String(decoding: bytes[lower..<upper], as: UTF8.self)
        }
        while index < bytes.count {
            // The name: up to "=" or ",".
            let nameStart = index
            while index < bytes.count, bytes[index] != 0x2C, bytes[index] != 0x3D { index += 1 }
            let name = trimmed(nameStart..<index).lowercased()
            var argument: String?
            if index < bytes.count, bytes[index] == 0x3D {  // "="
                index += 1
                while index < bytes.count, isSpace(bytes[index]) { index += 1 }
                if index < bytes.count, bytes[index] == 0x22 {  // a quoted string
                    index += 1
                    var text: [UInt8] = []
                    while index < bytes.count {
                        let byte = bytes[index]
                        index += 1
                        if byte == 0x22 { break }
                        if byte == 0x5C, index < bytes.count {  // "\" escapes the next byte
                            text.append(bytes[index])
                            index += 1
                        } else {
                            text.append(byte)
                        }
                    }
                    argument = String(decoding: text, as: UTF8.self)
                    // Anything between the closing quote and the next comma is ignored.
                    while index < bytes.count, bytes[index] != 0x2C { index += 1 }
                } else {
                    let argumentStart = index
                    while index < bytes.count, bytes[index] != 0x2C { index += 1 }
                    argument = trimmed(argumentStart..<index)
                }
            }
            if index < bytes.count { index += 1 }  // the comma
            if !name.isEmpty { result.append((name, argument)) }
        }
        return result
    }
}
