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
