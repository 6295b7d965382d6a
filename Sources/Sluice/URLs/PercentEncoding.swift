import Foundation

/// RFC 3986 percent-encoding: the one encoder every stage uses. ``encode(_:keeping:)`` never
/// encodes a path, query or fragment twice (a `%` followed by two hex digits is kept), while a
/// query name or value (`.queryItem`) is data: its `%` is always encoded, whichever way the pair
/// reaches the request (`get(query:)`, an `Endpoint`'s query, common parameters).
/// ``encodeStrictly(_:keepingSlash:)`` encodes every byte but the unreserved ones, for a
/// signature's canonical text.
///
/// ```swift
/// import Sluice
///
/// PercentEncoding.encode("a b/ü", keeping: .path)          // "a%20b/%C3%BC"
/// PercentEncoding.encode("50%25 off", keeping: .path)       // "50%25%20off" (the %25 stays)
/// PercentEncoding.encode("50%25 off", keeping: .queryItem)  // "50%2525%20off" (a value is data)
/// PercentEncoding.encodeStrictly("a,b")                     // "a%2Cb"
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

    /// `text` with every byte outside the component's allowed set percent-encoded. Existing
    /// `%XX` escapes are kept in a path, a query or a fragment, which may already be URL text; a
    /// query name or value (`.queryItem`) is data, so its `%` is encoded too.
    public static func encode(_ text: String, keeping component: Component) -> String {
        let bytes = Array(text.utf8)
        var result = [UInt8]()
        result.reserveCapacity(bytes.count)
        let keepsEscapes = component != .queryItem
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if keepsEscapes, byte == UInt8(ascii: "%"), index + 2 < bytes.count, isHex(bytes[index + 1]), isHex(bytes[index + 2]) {
                result.append(contentsOf: bytes[index...index + 2])
                index += 3
                continue
            }
            if allowed(byte, component) {
                result.append(byte)
            } else {
                result.append(UInt8(ascii: "%"))
                result.append(hexDigit(byte >> 4))
                result.append(hexDigit(byte & 0x0F))
            }
            index += 1
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// `text` with every byte but RFC 3986's unreserved ones (`A–Z a–z 0–9 - . _ ~`) as `%XX`
    /// (uppercase hex), `%` included; `/` is kept too when `keepingSlash`. For a raw name or value
    /// whose `%` is data: a signature's canonical text, an endpoint's query item.
    public static func encodeStrictly(_ text: String, keepingSlash: Bool = false) -> String {
        @inline(__always) func kept(_ byte: UInt8) -> Bool {
            unreserved[Int(byte)] || (keepingSlash && byte == UInt8(ascii: "/"))
        }
        // Most names and values need no escape at all.
        var text = text
        guard !text.withUTF8({ $0.allSatisfy(kept) }) else { return text }
        return escaping(text) { !kept($0) }
    }

    /// `text` with its controls, spaces and bytes past ASCII as `%XX`, the rest kept: a redirect's
    /// `Location` made a URL as browsers and curl make it.
    package static func encodeControlsAndNonASCII(_ text: String) -> String {
        escaping(text) { $0 <= 0x20 || $0 >= 0x7F }
    }

    /// `text` with each byte `escaped` says as `%XX`.
    private static func escaping(_ text: String, _ escaped: (UInt8) -> Bool) -> String {
        var result = [UInt8]()
        result.reserveCapacity(text.utf8.count * 3)
        for byte in text.utf8 {
            if escaped(byte) {
                result.append(UInt8(ascii: "%"))
                result.append(hexDigit(byte >> 4))
                result.append(hexDigit(byte & 0x0F))
            } else {
                result.append(byte)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Whether `byte` is one of RFC 3986's unreserved characters.
    package static func isUnreserved(_ byte: UInt8) -> Bool { unreserved[Int(byte)] }

    /// RFC 3986's unreserved bytes, `A–Z a–z 0–9 - . _ ~`, by byte value.
    private static let unreserved: [Bool] = (0..<256).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// `0`–`9`, `A`–`F` for a value below 16: the one hex table.
    static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
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

    static func isHex(_ byte: UInt8) -> Bool { hexValue(byte) != nil }

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
