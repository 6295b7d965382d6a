import Foundation
import Sluice

/// Shared by the signers: RFC 3986 percent-encoding and the parameters of a request.
enum SigningText {
    /// RFC 3986: everything but the unreserved characters encoded (`/` too unless `keepingSlash`).
    static func encode(_ text: String, keepingSlash: Bool = false) -> String {
        URLQuery.encode(text, keepingSlash: keepingSlash)
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
        guard request.headers["Content-Type"]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true,
            case .bytes(let body) = request.body
        else { return [] }
        return pairs(String(decoding: body, as: UTF8.self), plusIsSpace: true)
    }

    /// Pairs encoded, sorted by name then value (byte order), joined as `name=value&…`: AWS's
    /// canonical query and OAuth's normalised parameters alike.
    static func normalized(_ pairs: [(String, String)]) -> String {
        let encoded: [(name: String, value: String)] = pairs.map { (encode($0.0), encode($0.1)) }
        let sorted = encoded.sorted { (a, b) -> Bool in a.name == b.name ? a.value < b.value : a.name < b.name }
        return sorted.map { $0.name + "=" + $0.value }.joined(separator: "&")
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
