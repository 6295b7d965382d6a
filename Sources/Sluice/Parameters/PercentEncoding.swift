import Foundation

/// RFC 3986 percent-encoding that never encodes twice: a `%` followed by two hex digits is kept.
///
/// ```swift
/// import Sluice
///
/// PercentEncoding.encode("a b/ü", keeping: .path)          // "a%20b/%C3%BC"
/// PercentEncoding.encode("50%25 off", keeping: .queryItem)  // "50%25%20off" (the %25 stays)
/// try PercentEncoding.url("https://example.com/naïve path?q=ä")   // encodes what it must
/// PercentEncoding.decode("caf%C3%A9+au+lait", plusIsSpace: true)  // "café au lait"
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
                result.append(UInt8(ascii: "%"))
                result.append(URLQuery.hexDigit(byte >> 4))
                result.append(URLQuery.hexDigit(byte & 0x0F))
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

    /// `text` with every `%XX` turned back into its byte (and `+` into a space when `plusIsSpace`,
    /// as in a form body), read as UTF-8; `nil` when a `%` is not followed by two hex digits or the
    /// bytes are not UTF-8, as Foundation's `removingPercentEncoding`. A `%2B` stays a `+`.
    public static func decode(_ text: String, plusIsSpace: Bool = false) -> String? {
        decode(text[...], plusIsSpace: plusIsSpace)
    }

    /// Decodes part of a string, as the `String` form does.
    public static func decode(_ text: Substring, plusIsSpace: Bool = false) -> String? {
        let utf8 = text.utf8
        guard utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(text)
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            utf8.formIndex(after: &index)
            if byte == UInt8(ascii: "+") && plusIsSpace {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%") {
                guard index != utf8.endIndex, let high = hexValue(utf8[index]) else { return nil }
                utf8.formIndex(after: &index)
                guard index != utf8.endIndex, let low = hexValue(utf8[index]) else { return nil }
                utf8.formIndex(after: &index)
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func isHex(_ byte: UInt8) -> Bool { hexValue(byte) != nil }

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
