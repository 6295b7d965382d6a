/// How much ``LoggingMiddleware`` writes for each call. Each level includes the one before.
///
/// ```swift
/// import SluiceLogging
///
/// LoggingMiddleware(level: .headers)
/// ```
public enum LogLevel: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    /// Nothing at all; the middleware passes the call straight on.
    case none
    /// One line per call: method, URL, status, size, time, where the response came from and what
    /// modules report (`retries 1`, `cache miss`), then the per-middleware timings when tracing
    /// is on.
    ///
    ///     GET https://api.example.com/users?token=<redacted> -> 200 OK, 1.2 KB, 35 ms, network
    ///     POST https://api.example.com/orders -> failed: timedOut (transport CurlTransport): connect timed out, 10002 ms
    ///     GET https://api.example.com/feed -> cancelled after 120 ms
    case basic
    /// Adds the request (`>`) and response (`<`) header fields, secrets redacted.
    ///
    ///     GET https://api.example.com/users -> 200 OK, 17 B, 35 ms, network
    ///     > Accept: application/json
    ///     > Authorization: <redacted>
    ///     < Content-Type: application/json
    ///     < Content-Length: 17
    case headers
    /// Adds the bodies up to a limit: JSON pretty-printed, text as it is, anything else as its size;
    /// file and stream bodies as their size only, never read.
    ///
    ///     POST https://api.example.com/login -> 200 OK, 11 B, 35 ms, network
    ///     > Content-Type: application/json
    ///     > {
    ///     >   "password" : "<redacted>",
    ///     >   "user" : "ann"
    ///     > }
    ///     < Content-Type: application/json
    ///     < {
    ///     <   "ok" : true
    ///     < }
    case body

    /// `off`, `basic`, `headers` or `body`, as `SLUICE_LOG` spells them (`none` is accepted too).
    public init?(name: String) {
        switch name.lowercased() {
        case "off", "none", "0": self = .none
        case "basic", "1": self = .basic
        case "headers", "2": self = .headers
        case "body", "3": self = .body
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .none: "off"
        case .basic: "basic"
        case .headers: "headers"
        case .body: "body"
        }
    }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}
