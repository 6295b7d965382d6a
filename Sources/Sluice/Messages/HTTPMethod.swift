/// An HTTP request method (RFC 9110 §9).
///
/// The eight standard methods are static members. Any other method that is a valid RFC 9110 token
/// (for example WebDAV's `PROPFIND`) can be made with ``init(rawValue:)``, which returns `nil` for
/// anything that is not a token, so a method can never smuggle a space or a line break onto the
/// request line.
///
/// ```swift
/// import Sluice
///
/// var request = HTTPRequest(method: .post, url: url)
/// if let propfind = HTTPMethod(rawValue: "PROPFIND") { request.method = propfind }
/// HTTPMethod(rawValue: "GET /x") // nil: a space is not a token character
/// ```
///
/// Methods are case-sensitive (RFC 9110 §9.1): `HTTPMethod(rawValue: "get")` is a different,
/// non-standard method from ``get``.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Makes a method from an RFC 9110 token; `nil` if `rawValue` is empty or has a non-token character.
    public init?(rawValue: String) {
        guard HTTPToken.isToken(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    private init(unchecked: String) { self.rawValue = unchecked }

    /// `GET`: fetch the target.
    public static let get = HTTPMethod(unchecked: "GET")
    /// `HEAD`: `GET` without the body.
    public static let head = HTTPMethod(unchecked: "HEAD")
    /// `POST`: process the enclosed body.
    public static let post = HTTPMethod(unchecked: "POST")
    /// `PUT`: replace the target with the enclosed body.
    public static let put = HTTPMethod(unchecked: "PUT")
    /// `PATCH`: change part of the target.
    public static let patch = HTTPMethod(unchecked: "PATCH")
    /// `DELETE`: remove the target.
    public static let delete = HTTPMethod(unchecked: "DELETE")
    /// `OPTIONS`: the target's communication options.
    public static let options = HTTPMethod(unchecked: "OPTIONS")
    /// `TRACE`: a loop-back of the request.
    public static let trace = HTTPMethod(unchecked: "TRACE")

    /// Whether the method is idempotent by definition (RFC 9110 §9.2.2): GET, HEAD, OPTIONS, TRACE,
    /// PUT and DELETE. Retry uses this to decide whether a request may be sent again.
    public var isIdempotent: Bool {
        switch rawValue {
        case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE": true
        default: false
        }
    }

    /// Whether the method is safe (RFC 9110 §9.2.1): GET, HEAD, OPTIONS and TRACE.
    public var isSafe: Bool {
        switch rawValue {
        case "GET", "HEAD", "OPTIONS", "TRACE": true
        default: false
        }
    }

    public var description: String { rawValue }
}

/// RFC 9110 §5.6.2 `token` and `tchar`.
enum HTTPToken {
    /// `tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA`
    @inline(__always)
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// The token characters as bit masks over bytes 0–63 and 64–127 (for loops over many bytes;
    /// a test checks them against `isTokenCharacter`).
    static let masks: (UInt64, UInt64) = {
        var low: UInt64 = 0, high: UInt64 = 0
        for byte in UInt8(0)..<128 where isTokenCharacter(byte) {
            if byte < 64 { low |= 1 << UInt64(byte) } else { high |= 1 << UInt64(byte - 64) }
        }
        return (low, high)
    }()

    /// A non-empty string of token characters.
    static func isToken(_ string: String) -> Bool {
        var string = string
        return string.withUTF8 { bytes in
            !bytes.isEmpty && bytes.allSatisfy(isTokenCharacter)
        }
    }
}
