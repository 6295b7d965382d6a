import Foundation

/// Adding encoded pairs to a URL's query, as every stage that adds parameters does (the encoding
/// itself is ``PercentEncoding``'s).
///
/// ```swift
/// import Foundation
/// import Sluice
///
/// try URLQuery.appending("a=1&b=2", to: URL(string: "https://x.example/p?q=0#top")!)
/// // https://x.example/p?q=0&a=1&b=2#top
/// ```
public enum URLQuery {
    /// `url` with `encodedPairs` (`a=1&b=2`, already encoded) added to its query, before any
    /// fragment.
    ///
    /// - Throws: `.invalidURL` quoting the result when it is not a URL.
    public static func appending(_ encodedPairs: String, to url: URL) throws(SluiceError) -> URL {
        guard !encodedPairs.isEmpty else { return url }
        let joined = appendingText(encodedPairs, to: url.absoluteString)
        guard let result = URL(string: joined) else {
            // Quoted through the default policy: the pairs may be a signature or a token.
            throw SluiceError(.invalidURL, "adding query parameters made an invalid URL: \(String(reflecting: Redaction.default.url(text: joined)))")
        }
        return result
    }

    /// The URL text `url` with `encodedPairs` added to its query, before any fragment: one pass
    /// over the bytes and one string built (the query's end, a fragment's `#` or the end, and
    /// whether a `?` and a separator are needed).
    static func appendingText(_ encodedPairs: String, to url: String) -> String {
        var whole = url
        var pairs = encodedPairs
        return whole.withUTF8 { url in
            pairs.withUTF8 { pairs in
                let hash = url.firstIndex(of: UInt8(ascii: "#")) ?? url.endIndex
                let head = UnsafeBufferPointer(rebasing: url[..<hash])
                let separator: UInt8? =
                    !head.contains(UInt8(ascii: "?"))
                    ? UInt8(ascii: "?") : (head.last == UInt8(ascii: "?") || head.last == UInt8(ascii: "&") ? nil : UInt8(ascii: "&"))
                return String(unsafeUninitializedCapacity: url.count + 1 + pairs.count) { buffer in
                    var end = buffer.initialize(fromContentsOf: head)
                    if let separator {
                        buffer[end] = separator
                        end += 1
                    }
                    end += UnsafeMutableBufferPointer(rebasing: buffer[end...]).initialize(fromContentsOf: pairs)
                    end += UnsafeMutableBufferPointer(rebasing: buffer[end...]).initialize(fromContentsOf: url[hash...])
                    return end
                }
            }
        }
    }

    /// Whether `pairs` holds only what a query keeps as it is whatever the URL: RFC 3986's
    /// unreserved characters, `%` and two hex digits, `=` and `&` (what
    /// ``PercentEncoding/encodeStrictly(_:keepingSlash:)`` writes, joined). Such pairs added to a
    /// valid URL's query leave it valid.
    package static func isStrictlyEncoded(_ pairs: String) -> Bool {
        var pairs = pairs
        return pairs.withUTF8 { bytes in
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "%") {
                    guard index + 2 < bytes.count, PercentEncoding.isHex(bytes[index + 1]), PercentEncoding.isHex(bytes[index + 2]) else {
                        return false
                    }
                    index += 3
                    continue
                }
                guard PercentEncoding.isUnreserved(byte) || byte == UInt8(ascii: "=") || byte == UInt8(ascii: "&") else { return false }
                index += 1
            }
            return true
        }
    }
}
