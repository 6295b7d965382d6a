/// A place in the default order of a ``Client``'s pipeline, outermost first:
///
/// `HUD → Logging → Headers → URL encoding → (your middleware) → Redirects → Cache → Retry →
/// Reachability gate → Gzip → Encryption → Signing → (network) → transport`
///
/// ``Client/Builder`` keeps its middleware sorted by position, so adding them in any order gives
/// the same chain; two at the same position keep the order they were added in. Each middleware
/// type names its place through ``Middleware/defaultPosition``; you can override it when adding.
///
/// ```swift
/// import Sluice
/// import SluiceLogging
///
/// builder.add(AuditMiddleware())                          // .application
/// builder.add(LoggingMiddleware(level: .headers), at: .network)   // every attempt, as sent
/// builder.add(AuditMiddleware(), at: .after(.headers))
/// ```
public struct MiddlewarePosition: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Smaller ranks are outer.
    public let rank: Int
    /// The position's name, for descriptions.
    public let name: String

    /// A position of your own: `rank` orders it among the others (smaller is outer).
    public init(rank: Int, name: String) {
        self.rank = rank
        self.name = name
    }

    public static func < (lhs: MiddlewarePosition, rhs: MiddlewarePosition) -> Bool { lhs.rank < rhs.rank }

    /// Just inside `position`.
    public static func after(_ position: MiddlewarePosition) -> MiddlewarePosition {
        MiddlewarePosition(rank: position.rank + 1, name: "after \(position.name)")
    }

    /// Just outside `position`.
    public static func before(_ position: MiddlewarePosition) -> MiddlewarePosition {
        MiddlewarePosition(rank: position.rank - 1, name: "before \(position.name)")
    }

    /// Outermost: sees the whole call, cache hits included.
    public static let hud = MiddlewarePosition(rank: 100, name: "hud")
    /// One log entry per call, with its attempts and cache outcome.
    public static let logging = MiddlewarePosition(rank: 200, name: "logging")
    /// Static, dynamic and auth headers; common parameters.
    public static let headers = MiddlewarePosition(rank: 300, name: "headers")
    /// Query and form parameters encoded (the base URL is the client's).
    public static let urlEncoding = MiddlewarePosition(rank: 400, name: "urlEncoding")
    /// In-house middleware: after the request is shaped, before the cache key is taken and the
    /// request is signed.
    public static let application = MiddlewarePosition(rank: 450, name: "application")
    /// Redirects followed hop by hop: each hop passes the cache, retry, the gate and signing as a
    /// request of its own.
    public static let redirects = MiddlewarePosition(rank: 480, name: "redirects")
    /// Cache read and write; outside retry so a stale copy can answer when the network fails.
    public static let cache = MiddlewarePosition(rank: 500, name: "cache")
    /// Retry with backoff; every attempt passes the gate and is signed afresh.
    public static let retry = MiddlewarePosition(rank: 600, name: "retry")
    /// Fails fast with `.offline` when there is no network.
    public static let reachability = MiddlewarePosition(rank: 700, name: "reachability")
    /// Request body compression; before signing, so the signature covers the bytes sent.
    public static let gzip = MiddlewarePosition(rank: 800, name: "gzip")
    /// Payload encryption: inside gzip (a body is compressed, then encrypted) and outside
    /// signing (what is signed is the encrypted body that goes out).
    public static let encryption = MiddlewarePosition(rank: 850, name: "encryption")
    /// A fresh signature for every attempt.
    public static let signing = MiddlewarePosition(rank: 900, name: "signing")
    /// Just before the transport: sees each attempt exactly as sent (OkHttp's network interceptors).
    public static let network = MiddlewarePosition(rank: 1000, name: "network")

    public var description: String { "\(name)(\(rank))" }
}
