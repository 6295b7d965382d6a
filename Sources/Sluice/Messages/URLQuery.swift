import Foundation

/// Small, exact helpers for query strings that several middleware modules share: RFC 3986
/// encoding of a name or value, and adding encoded pairs to a URL.
///
/// ```swift
/// import Foundation
/// import Sluice
///
/// URLQuery.encode("café au lait")                                     // "caf%C3%A9%20au%20lait"
/// try URLQuery.appending("a=1&b=2", to: URL(string: "https://x.example/p?q=0#top")!)
/// // https://x.example/p?q=0&a=1&b=2#top
/// ```
public enum URLQuery {
    /// Everything but RFC 3986's unreserved characters (`A–Z a–z 0–9 - . _ ~`) as `%XX`
    /// (uppercase hex); `/` is kept too when `keepingSlash`.
    public static func encode(_ text: String, keepingSlash: Bool = false) -> String {
        @inline(__always) func kept(_ byte: UInt8) -> Bool {
            unreserved[Int(byte)] || (keepingSlash && byte == UInt8(ascii: "/"))
        }
        // Most names and values need no escape at all.
        var text = text
        guard !text.withUTF8({ $0.allSatisfy(kept) }) else { return text }
        var result = [UInt8]()
        result.reserveCapacity(text.utf8.count * 3)
        for byte in text.utf8 {
            if kept(byte) {
                result.append(byte)
            } else {
                result.append(UInt8(ascii: "%"))
                result.append(hexDigit(byte >> 4))
                result.append(hexDigit(byte & 0x0F))
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// RFC 3986's unreserved bytes, `A–Z a–z 0–9 - . _ ~`, by byte value.
    private static let unreserved: [Bool] = (0..<256).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// `0`–`9`, `A`–`F` for a value below 16.
    static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    /// `url` with `encodedPairs` (`a=1&b=2`, already encoded) added to its query, before any
    /// fragment.
    ///
    /// - Throws: `.invalidURL` quoting the result when it is not a URL.
    public static func appending(_ encodedPairs: String, to url: URL) throws(SluiceError) -> URL {
        guard !encodedPairs.isEmpty else { return url }
        var whole = url.absoluteString
        var pairs = encodedPairs
        // One pass over the bytes and one string built: the query's end (a fragment's `#`, or the
        // end), and whether a `?` and a separator are needed.
        let joined = whole.withUTF8 { url in
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
        guard let result = URL(string: joined) else {
            throw SluiceError(.invalidURL, "adding query parameters made an invalid URL: \(String(reflecting: joined))")
        }
        return result
    }
}
