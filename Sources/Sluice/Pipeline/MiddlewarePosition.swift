/// A place in the default order of a ``Client``'s pipeline, outermost first:
///
/// `HUD → Tracing → Metrics → Logging → HAR recording → Headers → URL encoding → (your
/// middleware) → Redirects → Cache → Outbox → Retry → Hedging → Attempt tracing → Circuit breaker →
/// Reachability gate → Concurrency limit → Deadline header → Gzip → Encryption → Signing →
/// (network) → transport`
///
/// Every named position, the modules' included, is in the table below with its rank and why it
/// is there. Before the outermost of them, every request passes the core's own stages (base URL,
/// privacy policy, fields, JSON body, options check, query encoding), whichever door it came in by.
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

    // MARK: The table
    //
    // Every named position of Sluice and its modules, outermost first. A module's middleware names
    // its place here, so the whole order is read in one place. Ranks leave gaps for your own
    // (`.after(_:)`, `.before(_:)`, or `init(rank:name:)`).

    /// 100. Outermost: sees the whole call, cache hits included.
    public static let hud = MiddlewarePosition(rank: 100, name: "hud")
    /// 190. One span per call (`SluiceTracing`), around every stage of observability, so logs and
    /// metrics happen inside its trace context.
    public static let tracing = MiddlewarePosition(rank: 190, name: "tracing")
    /// 195. One count and duration per call (`SluiceMetrics`), as the caller sees it: outside
    /// retry and the cache.
    public static let metrics = MiddlewarePosition(rank: 195, name: "metrics")
    /// 200. One log entry per call, with its attempts and cache outcome.
    public static let logging = MiddlewarePosition(rank: 200, name: "logging")
    /// 210. One HAR entry per call (`SluiceLogging`'s recorder), as the caller made it: inside the
    /// log line, outside everything that shapes the request.
    public static let harRecording = MiddlewarePosition(rank: 210, name: "harRecording")
    /// 300. Static, dynamic and auth headers; common parameters.
    public static let headers = MiddlewarePosition(rank: 300, name: "headers")
    /// 400. Query and form parameters encoded (the base URL is the client's).
    public static let urlEncoding = MiddlewarePosition(rank: 400, name: "urlEncoding")
    /// 450. In-house middleware: after the request is shaped, before the cache key is taken and
    /// the request is signed.
    public static let application = MiddlewarePosition(rank: 450, name: "application")
    /// 470. An `Idempotency-Key` per non-idempotent call (`SluiceRetry`): outside redirects, the
    /// cache, the outbox, retry and hedging, so every resend of the call carries the one key;
    /// inside the stages that shape the request it keys.
    public static let idempotencyKey = MiddlewarePosition(rank: 470, name: "idempotencyKey")
    /// 480. Redirects followed hop by hop: each hop passes the cache, retry, the gate and signing
    /// as a request of its own.
    public static let redirects = MiddlewarePosition(rank: 480, name: "redirects")
    /// 500. Cache read and write; outside retry so a stale copy can answer when the network fails.
    public static let cache = MiddlewarePosition(rank: 500, name: "cache")
    /// 550. The outbox (`SluiceOutbox`): between the cache and retry, so retry has its go first
    /// and the outbox keeps for later a write that still failed.
    public static let outbox = MiddlewarePosition(rank: 550, name: "outbox")
    /// 600. Retry with backoff; every attempt passes the gate and is signed afresh.
    public static let retry = MiddlewarePosition(rank: 600, name: "retry")
    /// 640. Hedged requests (`SluiceResilience`): inside retry (retry sees one attempt, hedged or
    /// not) and outside the circuit breaker (which counts each copy).
    public static let hedging = MiddlewarePosition(rank: 640, name: "hedging")
    /// 645. A span per attempt (`SluiceTracing`): inside retry and hedging, so each attempt and
    /// each hedged copy is a span of its own; outside the circuit breaker, so a call it refuses is
    /// an attempt that failed at once; outside signing, so a signature covers the trace fields.
    public static let attemptTracing = MiddlewarePosition(rank: 645, name: "attemptTracing")
    /// 650. The circuit breaker (`SluiceResilience`): inside retry, so it sees each attempt and a
    /// retry to an open circuit fails at once; outside the reachability gate, so an offline
    /// machine opens no circuit.
    public static let circuitBreaker = MiddlewarePosition(rank: 650, name: "circuitBreaker")
    /// 700. Fails fast with `.offline` when there is no network.
    public static let reachability = MiddlewarePosition(rank: 700, name: "reachability")
    /// 710. The rate limit (`SluiceResilience`): inside retry, hedging and the circuit breaker
    /// (each attempt and each copy spends a place, a call the breaker refuses none), inside the
    /// reachability gate (a call that cannot go out spends none), outside the concurrency limit (a
    /// call waiting for its rate holds no slot).
    public static let rateLimit = MiddlewarePosition(rank: 710, name: "rateLimit")
    /// 720. The adaptive concurrency limit (`SluiceResilience`): inside retry, hedging and the
    /// circuit breaker (each attempt and each copy takes a slot, a call the breaker refuses takes
    /// none) and inside the reachability gate (a call waiting for the network holds no slot);
    /// outside the deadline header and signing, which then see the time the call is really sent.
    public static let concurrencyLimit = MiddlewarePosition(rank: 720, name: "concurrencyLimit")
    /// 750. The deadline sent to the server (`SluiceResilience`): inside retry and the
    /// reachability gate, so each attempt carries its own time left, and outside signing, so a
    /// signature covers it.
    public static let deadlineHeader = MiddlewarePosition(rank: 750, name: "deadlineHeader")
    /// 800. Request body compression; before signing, so the signature covers the bytes sent.
    public static let gzip = MiddlewarePosition(rank: 800, name: "gzip")
    /// 850. Payload encryption: inside gzip (a body is compressed, then encrypted) and outside
    /// signing (what is signed is the encrypted body that goes out).
    public static let encryption = MiddlewarePosition(rank: 850, name: "encryption")
    /// 900. A fresh signature for every attempt.
    public static let signing = MiddlewarePosition(rank: 900, name: "signing")
    /// 1000. Just before the transport: sees each attempt exactly as sent (OkHttp's network
    /// interceptors).
    public static let network = MiddlewarePosition(rank: 1000, name: "network")

    public var description: String { "\(name)(\(rank))" }
}
