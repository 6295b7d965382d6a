/// An HTTP status: the code and its reason phrase.
///
/// Two statuses are equal when their codes are; the phrase is for people.
///
/// ```swift
/// let status: HTTPStatus = 404
/// status.reasonPhrase      // "Not Found"
/// status.isClientError     // true
/// status == .notFound      // true
/// ```
public struct HTTPStatus: Sendable, Hashable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    public let code: Int
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

    public static let `continue`: HTTPStatus = 100
    public static let ok: HTTPStatus = 200
    public static let created: HTTPStatus = 201
    public static let accepted: HTTPStatus = 202
    public static let noContent: HTTPStatus = 204
    public static let partialContent: HTTPStatus = 206
    public static let movedPermanently: HTTPStatus = 301
    public static let found: HTTPStatus = 302
    public static let seeOther: HTTPStatus = 303
    public static let notModified: HTTPStatus = 304
    public static let temporaryRedirect: HTTPStatus = 307
    public static let permanentRedirect: HTTPStatus = 308
    public static let badRequest: HTTPStatus = 400
    public static let unauthorized: HTTPStatus = 401
    public static let forbidden: HTTPStatus = 403
    public static let notFound: HTTPStatus = 404
    public static let methodNotAllowed: HTTPStatus = 405
    public static let requestTimeout: HTTPStatus = 408
    public static let conflict: HTTPStatus = 409
    public static let gone: HTTPStatus = 410
    public static let preconditionFailed: HTTPStatus = 412
    public static let contentTooLarge: HTTPStatus = 413
    public static let rangeNotSatisfiable: HTTPStatus = 416
    public static let tooEarly: HTTPStatus = 425
    public static let tooManyRequests: HTTPStatus = 429
    public static let internalServerError: HTTPStatus = 500
    public static let notImplemented: HTTPStatus = 501
    public static let badGateway: HTTPStatus = 502
    public static let serviceUnavailable: HTTPStatus = 503
    public static let gatewayTimeout: HTTPStatus = 504

    /// RFC 9110 §15 reason phrases.
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
