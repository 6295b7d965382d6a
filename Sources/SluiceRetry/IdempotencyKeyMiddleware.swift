import Foundation
import Sluice

/// Gives each non-idempotent call an `Idempotency-Key` field once (draft-ietf-httpapi-idempotency-key-header),
/// so the server can tell a resend from a new request: the same key goes with every retry, hedged
/// copy, redirect hop and outbox replay of that call, and two calls never share one. With it, retry
/// and hedging resend a POST they would otherwise refuse to.
///
/// - Only methods in ``Configuration/methods`` get a key (POST and PATCH); a request that carries
///   its own `Idempotency-Key` keeps it.
/// - Its place, `MiddlewarePosition.idempotencyKey`, is outside redirects, the cache, the outbox,
///   retry and hedging, so the key is set once per call and every resend below it carries it; and
///   inside the headers and in-house stages, which shape the request it keys.
///
/// ```swift
/// import Sluice
/// import SluiceCurl
/// import SluiceRetry
///
/// var builder = Client.Builder(transport: CurlTransport())
/// builder.add(IdempotencyKeyMiddleware())   // POST /charges: Idempotency-Key: 0f8fad5b-d9cb-469f-a165-70867728950e
/// builder.add(RetryMiddleware())            // may now retry the POST: the server sees one charge
/// let client = builder.build()
/// ```
public struct IdempotencyKeyMiddleware: Middleware {
    /// Which calls get a key, and how it is written.
    public struct Configuration: Sendable {
        /// The methods that get a key: POST and PATCH, the ones neither idempotent nor safe.
        public var methods: Set<HTTPMethod>
        /// Whether the key is written as a structured-field string, `"0f8f…"`, as the draft
        /// defines it; `false` (the default) writes it bare, as Stripe, Adyen and most servers that
        /// honour the field read it.
        public var quoted: Bool
        /// Makes each new key: ``IdempotencyKeyMiddleware/randomKey()`` unless set.
        public var makeKey: @Sendable () -> String

        /// Settings with each value given, or its default.
        public init(
            methods: Set<HTTPMethod> = [.post, .patch], quoted: Bool = false,
            makeKey: @escaping @Sendable () -> String = IdempotencyKeyMiddleware.randomKey
        ) {
            self.methods = methods
            self.quoted = quoted
            self.makeKey = makeKey
        }

        /// POST and PATCH, a bare random UUID.
        public static let `default` = Configuration()
    }

    public static let defaultPosition = MiddlewarePosition.idempotencyKey

    /// A random (version 4) UUID in lowercase, `0f8fad5b-d9cb-469f-a165-70867728950e`: 122 bits
    /// from the system's secure generator (`getrandom`), written straight into the string, a
    /// quarter of what `UUID().uuidString.lowercased()` costs.
    ///
    /// ```swift
    /// import SluiceRetry
    ///
    /// print(IdempotencyKeyMiddleware.randomKey())   // 0f8fad5b-d9cb-469f-a165-70867728950e
    /// ```
    @Sendable
    public static func randomKey() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (generator.next() as UInt64, generator.next() as UInt64)
        return withUnsafeMutableBytes(of: &bytes) { raw in
            raw[6] = raw[6] & 0x0F | 0x40  // version 4
            raw[8] = raw[8] & 0x3F | 0x80  // RFC 9562's variant
            return String(unsafeUninitializedCapacity: 36) { text in
                var at = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[at] = UInt8(ascii: "-")
                        at += 1
                    }
                    text[at] = Data.hexDigit(raw[index] >> 4)
                    text[at + 1] = Data.hexDigit(raw[index] & 0x0F)
                    at += 2
                }
                return at
            }
        }
    }

    /// Which calls get a key.
    public let configuration: Configuration

    /// `key` as an RFC 8941 sf-string: in quotes, `"` and `\` escaped.
    ///
    /// - Throws: `.invalidHeader` for a character an sf-string cannot hold (outside 0x20–0x7E).
    static func structuredString(_ key: String) throws(SluiceError) -> String {
        var quoted = "\""
        for (offset, scalar) in key.unicodeScalars.enumerated() {
            guard (0x20...0x7E).contains(scalar.value) else {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                throw SluiceError(
                    .invalidHeader,
                    "the Idempotency-Key made for a quoted field has \(code) at character \(offset): a structured-field string holds "
                        + "printable ASCII only (RFC 8941 §3.3.3); make keys of it, or send them bare (quoted: false)")
            }
            if scalar == "\"" || scalar == "\\" { quoted.append("\\") }
            quoted.unicodeScalars.append(scalar)
        }
        return quoted + "\""
    }

    /// A middleware with `configuration`.
    public init(configuration: Configuration = .default) {
        self.configuration = configuration
    }

    /// - Throws: `.invalidHeader` when ``Configuration/makeKey`` makes a key a field cannot carry
    ///   (a line break), or, with ``Configuration/quoted``, one a structured-field string cannot
    ///   (RFC 8941 §3.3.3: printable ASCII only; anything else is refused, never sent raw), before
    ///   anything is sent.
    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        guard configuration.methods.contains(request.method), !request.headers.contains("Idempotency-Key") else {
            return try await next(request, context)
        }
        var keyed = request
        let key = configuration.makeKey()
        let value = configuration.quoted ? try Self.structuredString(key) : key
        try keyed.headers.append(name: "Idempotency-Key", value: value)
        return try await next(keyed, context)
    }
}
