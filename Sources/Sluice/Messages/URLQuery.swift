import Foundation

/// Small, exact helpers for query strings that several middleware modules share: RFC 3986
/// encoding of a name or value, and adding encoded pairs to a URL.
///
/// ```swift
/// URLQuery.encode("café au lait")                                     // "caf%C3%A9%20au%20lait"
/// try URLQuery.appending("a=1&b=2", to: URL(string: "https://x.example/p?q=0#top")!)
/// // https://x.example/p?q=0&a=1&b=2#top
/// ```
public enum URLQuery {
    /// Everything but RFC 3986's unreserved characters (`A–Z a–z 0–9 - . _ ~`) as `%XX`
    /// (uppercase hex); `/` is kept too when `keepingSlash`.
    public static func encode(_ text: String, keepingSlash: Bool = false) -> String {
        var result = [UInt8]()
        result.reserveCapacity(text.utf8.count)
        let digits = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.append(byte)
            case UInt8(ascii: "/") where keepingSlash:
                result.append(byte)
            default:
                result.append(contentsOf: [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// `url` with `encodedPairs` (`a=1&b=2`, already encoded) added to its query, before any
    /// fragment.
    ///
    /// - Throws: `.invalidURL` quoting the result when it is not a URL.
    public static func appending(_ encodedPairs: String, to url: URL) throws(SluiceError) -> URL {
        guard !encodedPairs.isEmpty else { return url }
        var text = url.absoluteString
        var fragment = ""
        if let hash = text.firstIndex(of: "#") {
            fragment = String(text[hash...])
            text = String(text[..<hash])
        }
        let separator = text.contains("?") ? (text.hasSuffix("?") || text.hasSuffix("&") ? "" : "&") : "?"
        let joined = text + separator + encodedPairs + fragment
        guard let result = URL(string: joined) else {
            throw SluiceError(.invalidURL, "adding query parameters made an invalid URL: \(String(reflecting: joined))")
        }
        return result
    }
}
