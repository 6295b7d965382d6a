/// An HTTP status: the code and its reason phrase.
///
/// Two statuses are equal when their codes are; the phrase is for people.
///
/// ```swift
/// import Sluice
///
/// let status: HTTPStatus = 404
/// status.reasonPhrase      // "Not Found"
/// status.isClientError     // true
/// status == .notFound      // true
/// ```
public struct HTTPStatus: Sendable, Hashable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The three-digit status code.
    public let code: Int
    /// The reason phrase the server sent, or the standard one.
    public let reasonPhrase: String

    /// A status with `code`; the phrase defaults to the standard one (empty for unknown codes).
    public init(code: Int, reasonPhrase: String? = nil) {
        self.code = code
        self.reasonPhrase = reasonPhrase ?? Self.standardPhrase(code)
    }

    public init(integerLiteral value: Int) { self.init(code: value) }

    /// 1xx.
    public var isInformational: Bool { (100...199).contains(code) }
    /// 2xx.
    public var isSuccess: Bool { (200...299).contains(code) }
    /// 3xx.
    public var isRedirect: Bool { (300...399).contains(code) }
    /// 4xx.
    public var isClientError: Bool { (400...499).contains(code) }
    /// 5xx.
    public var isServerError: Bool { (500...599).contains(code) }

    public static func == (lhs: HTTPStatus, rhs: HTTPStatus) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// `"404 Not Found"`.
    public var description: String { reasonPhrase.isEmpty ? "\(code)" : "\(code) \(reasonPhrase)" }

    /// 100 Continue.
    public static let `continue`: HTTPStatus = 100
    /// 200 OK.
    public static let ok: HTTPStatus = 200
    /// 201 Created.
    public static let created: HTTPStatus = 201
    /// 202 Accepted.
    public static let accepted: HTTPStatus = 202
    /// 204 No Content.
    public static let noContent: HTTPStatus = 204
    /// 206 Partial Content.
    public static let partialContent: HTTPStatus = 206
    /// 301 Moved Permanently.
    public static let movedPermanently: HTTPStatus = 301
    /// 302 Found.
    public static let found: HTTPStatus = 302
    /// 303 See Other.
    public static let seeOther: HTTPStatus = 303
    /// 304 Not Modified.
    public static let notModified: HTTPStatus = 304
    /// 307 Temporary Redirect.
    public static let temporaryRedirect: HTTPStatus = 307
    /// 308 Permanent Redirect.
    public static let permanentRedirect: HTTPStatus = 308
    /// 400 Bad Request.
    public static let badRequest: HTTPStatus = 400
    /// 401 Unauthorized.
    public static let unauthorized: HTTPStatus = 401
    /// 403 Forbidden.
    public static let forbidden: HTTPStatus = 403
    /// 404 Not Found.
    public static let notFound: HTTPStatus = 404
    /// 405 Method Not Allowed.
    public static let methodNotAllowed: HTTPStatus = 405
    /// 408 Request Timeout.
    public static let requestTimeout: HTTPStatus = 408
    /// 409 Conflict.
    public static let conflict: HTTPStatus = 409
    /// 410 Gone.
    public static let gone: HTTPStatus = 410
    /// 412 Precondition Failed.
    public static let preconditionFailed: HTTPStatus = 412
    /// 413 Content Too Large.
    public static let contentTooLarge: HTTPStatus = 413
    /// 416 Range Not Satisfiable.
    public static let rangeNotSatisfiable: HTTPStatus = 416
    /// 425 Too Early.
    public static let tooEarly: HTTPStatus = 425
    /// 429 Too Many Requests.
    public static let tooManyRequests: HTTPStatus = 429
    /// 500 Internal Server Error.
    public static let internalServerError: HTTPStatus = 500
    /// 501 Not Implemented.
    public static let notImplemented: HTTPStatus = 501
    /// 502 Bad Gateway.
    public static let badGateway: HTTPStatus = 502
    /// 503 Service Unavailable.
    public static let serviceUnavailable: HTTPStatus = 503
    /// 504 Gateway Timeout.
    public static let gatewayTimeout: HTTPStatus = 504

    /// RFC 9110 §15 reason phrases.
    /// Whether the reason phrase is the standard one for the code (any case) or empty: text a
    /// server could not have put anything of its own in.
    package var hasStandardReasonPhrase: Bool {
        var phrase = reasonPhrase, standard = Self.standardPhrase(code)
        guard phrase.utf8.count == standard.utf8.count else { return phrase.isEmpty }
        // ASCII case folding over the bytes, without copies: this is asked of every logged answer.
        return phrase.withUTF8 { given in
            standard.withUTF8 { expected in
                for index in 0..<given.count where HTTPFields.asciiLowercased(given[index]) != HTTPFields.asciiLowercased(expected[index]) {
                    return false
                }
                return true
            }
        }
    }

    static func standardPhrase(_ code: Int) -> String {
        switch code {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 203: "Non-Authoritative Information"
        case 204: "No Content"
        case 205: "Reset Content"
        case 206: "Partial Content"
        case 300: "Multiple Choices"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 402: "Payment Required"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 407: "Proxy Authentication Required"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 416: "Range Not Satisfiable"
        case 417: "Expectation Failed"
        case 421: "Misdirected Request"
        case 422: "Unprocessable Content"
        case 425: "Too Early"
        case 426: "Upgrade Required"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 451: "Unavailable For Legal Reasons"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: ""
        }
    }
}
