import Foundation

/// RFC 3986 percent-encoding that never encodes twice: a `%` followed by two hex digits is kept.
///
/// ```swift
/// PercentEncoding.encode("a b/ü", keeping: .path)          // "a%20b/%C3%BC"
/// PercentEncoding.encode("50%25 off", keeping: .queryItem)  // "50%25%20off" (the %25 stays)
/// try PercentEncoding.url("https://example.com/naïve path?q=ä")   // encodes what it must
/// ```
public enum PercentEncoding {
    /// Which characters stay as they are, beside the unreserved ones (`A–Z a–z 0–9 - . _ ~`).
    public enum Component: Sendable {
        /// A path: also `/ : @ ! $ & ' ( ) * + , ; =`.
        case path
        /// A whole query: also `/ ? : @ ! $ ' ( ) * , ; & = +`.
        case query
        /// One name or value inside a query: also `/ ? : @ ! $ ' ( ) * , ;` (not `& = +`).
        case queryItem
        /// A fragment: as a query.
        case fragment
    }

    /// `text` with every byte outside the component's allowed set percent-encoded; existing
    /// `%XX` escapes are kept.
    public static func encode(_ text: String, keeping component: Component) -> String {
        let bytes = Array(text.utf8)
        var result = [UInt8]()
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count, isHex(bytes[index + 1]), isHex(bytes[index + 2]) {
                result.append(contentsOf: bytes[index...index + 2])
                index += 3
                continue
            }
            if allowed(byte, component) {
                result.append(byte)
            } else {
                let digits = Array("0123456789ABCDEF".utf8)
                result.append(contentsOf: [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
            }
            index += 1
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// A URL from `text`, percent-encoding the path, query and fragment where they need it
    /// (non-ASCII, spaces, unsafe characters) and keeping existing escapes.
    ///
    /// - Throws: `.invalidURL` quoting `text` when it has no scheme and host, or cannot be a URL.
    public static func url(_ text: String) throws(SluiceError) -> URL {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let schemeEnd = trimmed.range(of: "://") else {
            throw SluiceError(.invalidURL, "\(String(reflecting: text)) is not an absolute URL (no scheme://)")
        }
        let scheme = trimmed[..<schemeEnd.lowerBound]
        guard let first = scheme.first, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else {
            throw SluiceError(.invalidURL, "\(String(reflecting: text)) has an invalid scheme \(String(reflecting: String(scheme)))")
        }
        var rest = trimmed[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        rest = rest[authorityEnd...]
        guard !authority.isEmpty, authority.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
            throw SluiceError(.invalidURL, "\(String(reflecting: text)) has an invalid host \(String(reflecting: String(authority)))")
        }
        var fragment: Substring?
        if let hash = rest.firstIndex(of: "#") {
            fragment = rest[rest.index(after: hash)...]
            rest = rest[..<hash]
        }
        var query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var result = String(scheme).lowercased() + "://" + authority + encode(String(rest), keeping: .path)
        if let query { result += "?" + encode(String(query), keeping: .query) }
        if let fragment { result += "#" + encode(String(fragment), keeping: .fragment) }
        guard let url = URL(string: result), url.host != nil else {
            throw SluiceError(.invalidURL, "\(String(reflecting: text)) cannot be made a URL (tried \(String(reflecting: result)))")
        }
        return url
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66)
    }

    private static func allowed(_ byte: UInt8, _ component: Component) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        case UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "'"),
            UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: ","), UInt8(ascii: ";"):
            return true
        case UInt8(ascii: "&"), UInt8(ascii: "="), UInt8(ascii: "+"):
            return component != .queryItem
        case UInt8(ascii: "?"):
            return component != .path
        default:
            return false
        }
    }
}
