import Foundation
import Sluice

/// Shared by the signers: RFC 3986 percent-encoding and the parameters of a request.
@usableFromInline enum SigningText {
    /// RFC 3986: everything but the unreserved characters encoded (`/` too unless `keepingSlash`).
    static func encode(_ text: String, keepingSlash: Bool = false) -> String {
        PercentEncoding.encodeStrictly(text, keepingSlash: keepingSlash)
    }

    /// `name=value` pairs of a query or form body, percent-decoded (`+` read as a space in forms).
    static func pairs(_ text: String, plusIsSpace: Bool) -> [(String, String)] {
        text.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true).map { bytes in
            let item = Substring(bytes)
            let parts = item.utf8.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false).map(Substring.init)
            func decode(_ part: Substring) -> String {
                PercentEncoding.decode(part, plusIsSpace: plusIsSpace)
                    ?? (plusIsSpace ? String(part).replacing("+", with: " ") : String(part))
            }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    /// The request's query pairs.
    static func queryPairs(_ url: URL) -> [(String, String)] {
        guard let query = (url.baseURL == nil ? url : url.absoluteURL).query(percentEncoded: true) else { return [] }
        return pairs(query, plusIsSpace: false)
    }

    /// The pairs of an `application/x-www-form-urlencoded` in-memory body.
    static func formPairs(_ request: HTTPRequest) -> [(String, String)] {
        guard isForm(request), case .bytes(let body) = request.body else { return [] }
        return pairs(String(decoding: body, as: UTF8.self), plusIsSpace: true)
    }

    /// Whether the request's `Content-Type` is `application/x-www-form-urlencoded` (any case,
    /// parameters after it allowed).
    static func isForm(_ request: HTTPRequest) -> Bool {
        guard let type = request.headers["Content-Type"] else { return false }
        let form = "application/x-www-form-urlencoded".utf8
        return type.utf8.count >= form.count && zip(type.utf8, form).allSatisfy { HTTPFields.asciiLowercased($0) == $1 }
    }

    /// Pairs encoded, sorted by name then value (byte order), joined as `name=value&…`: AWS's
    /// canonical query and OAuth's normalised parameters alike.
    static func normalized(_ pairs: [(String, String)]) -> String {
        sortedAndJoined(encoded(pairs))
    }

    /// Each name and value RFC 3986 encoded.
    static func encoded(_ pairs: [(String, String)]) -> [(name: String, value: String)] {
        pairs.map { (encode($0.0), encode($0.1)) }
    }

    /// Encoded pairs sorted by name then value (byte order: encoded text is ASCII), joined.
    static func sortedAndJoined(_ encoded: [(name: String, value: String)]) -> String {
        joined(encoded.sorted { (a, b) -> Bool in a.name == b.name ? a.value < b.value : a.name < b.name })
    }

    /// Encoded pairs as `name=value&…`, in their order, written once into the string's own storage.
    static func joined(_ encoded: [(name: String, value: String)]) -> String {
        var count = 0
        for pair in encoded { count += pair.name.utf8.count + pair.value.utf8.count + 2 }
        guard count > 0 else { return "" }
        return String(unsafeUninitializedCapacity: count) { buffer in
            var end = 0
            for index in encoded.indices {
                if index > 0 {
                    buffer[end] = UInt8(ascii: "&")
                    end += 1
                }
                end = append(encoded[index].name, to: buffer, at: end)
                buffer[end] = UInt8(ascii: "=")
                end = append(encoded[index].value, to: buffer, at: end + 1)
            }
            return end
        }
    }

    /// Writes `text`'s bytes into `buffer` from `start`; where they end.
    @inline(__always)
    private static func append(_ text: String, to buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int) -> Int {
        var text = text
        return text.withUTF8 { start + UnsafeMutableBufferPointer(rebasing: buffer[start...]).initialize(fromContentsOf: $0) }
    }

    /// A random (version 4) UUID in lowercase, with or without its dashes: a nonce. Made from the
    /// system's random generator, without opening `/dev/urandom` as Foundation's `UUID()` does.
    @usableFromInline static func uuidNonce(dashes: Bool) -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next(), low = generator.next()
        return String(unsafeUninitializedCapacity: dashes ? 36 : 32) { text in
            var end = 0
            for index in 0..<16 {
                var byte = UInt8(truncatingIfNeeded: (index < 8 ? high : low) >> (8 * UInt64(index % 8)))
                if index == 6 { byte = byte & 0x0F | 0x40 }  // version 4
                if index == 8 { byte = byte & 0x3F | 0x80 }  // RFC 4122 variant
                if dashes && (index == 4 || index == 6 || index == 8 || index == 10) {
                    text[end] = UInt8(ascii: "-")
                    end += 1
                }
                text[end] = Data.hexDigit(byte >> 4)
                text[end + 1] = Data.hexDigit(byte & 0x0F)
                end += 2
            }
            return end
        }
    }

    /// The in-memory body, or nil for a file or stream body.
    static func body(_ request: HTTPRequest) -> Data? {
        switch request.body {
        case .empty: Data()
        case .bytes(let data): data
        default: nil
        }
    }
}
