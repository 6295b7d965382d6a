import Foundation

/// An HTTP request: a value that middleware change by copying.
///
/// ```swift
/// import Foundation
/// import Sluice
///
/// var request = HTTPRequest(method: .post, url: URL(string: "https://api.example.com/items")!)
/// try request.headers.set(name: "Content-Type", value: "application/json")
/// request.body = .bytes(Data(#"{"name":"pen"}"#.utf8))
/// let response = try await pipeline.send(request)
/// ```
///
/// ``options`` carries typed per-request intent for middleware (see ``RequestOptionKey``).
public struct HTTPRequest: Sendable, CustomStringConvertible {
    /// The request method.
    public var method: HTTPMethod {
        get { storage.method }
        _modify { makeUnique(); yield &storage.method }
    }

    /// The target; a relative URL is joined to the client's base URL when a ``Client`` sends it.
    public var url: URL {
        get { storage.url }
        _modify { makeUnique(); yield &storage.url }
    }

    /// The header fields, in order, repeated names kept.
    public var headers: HTTPFields {
        get { storage.headers }
        _modify { makeUnique(); yield &storage.headers }
    }

    /// What is sent after the header section.
    public var body: HTTPBody {
        get { storage.body }
        _modify { makeUnique(); yield &storage.body }
    }

    /// Typed per-request options that middleware modules declare (cache policy, HUD tip, tags…).
    public var options: RequestOptions {
        get { storage.options }
        _modify { makeUnique(); yield &storage.options }
    }

    /// The privacy policy for this request: what every error message, log line, HAR entry, cache
    /// fingerprint and cross-origin redirect hides or drops. ``Redaction/default`` unless set; a
    /// ``Client`` sets it to its ``Client/Configuration/redaction`` (adding what was set here), so
    /// a secret named once on the client is hidden by every stage.
    ///
    /// A stage with a redaction of its own (a logger's, a cache's) hides the names of both:
    /// `stage.adding(request.redaction)`. It never shows less than this.
    ///
    /// ```swift
    /// import Foundation
    /// import Sluice
    ///
    /// var request = HTTPRequest(url: URL(string: "https://api.example.com/pay?pin=1234")!)
    /// request.redaction = request.redaction.adding(parameters: ["pin"])
    /// print(request)   // GET https://api.example.com/pay?pin=<redacted>
    /// ```
    public var redaction: Redaction {
        get { storage.redaction }
        _modify { makeUnique(); yield &storage.redaction }
    }

    /// A request for `url` with `method`, `headers` and `body`.
    public init(method: HTTPMethod = .get, url: URL, headers: HTTPFields = [:], body: HTTPBody = .empty) {
        storage = Storage(method: method, url: url, headers: headers, body: body, options: RequestOptions(), redaction: .default)
    }

    /// `"GET https://example.com/path"`.
    /// The method and the URL as the request's ``redaction`` shows it: no password or secret query
    /// value, so a message or log line that quotes a request never carries one.
    public var description: String { "\(method) \(redaction.url(url))" }

    // The fields live in one copy-on-write box, so passing a request down the chain moves one
    // reference instead of copying every field at every hop.
    private var storage: Storage

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    /// Mutated only through `makeUnique()`, i.e. when this request holds the only reference, so no
    /// two values (and so no two tasks) ever see a write to the same box: that is what makes
    /// `@unchecked Sendable` safe here. Every field is itself `Sendable`. The fields skip run-time
    /// exclusivity checks: every access goes through this struct's accessors, and two overlapping
    /// accesses would need two overlapping accesses to the struct, which the compiler already
    /// refuses.
    private final class Storage: @unchecked Sendable {
        @exclusivity(unchecked) var method: HTTPMethod
        @exclusivity(unchecked) var url: URL
        @exclusivity(unchecked) var headers: HTTPFields
        @exclusivity(unchecked) var body: HTTPBody
        @exclusivity(unchecked) var options: RequestOptions
        @exclusivity(unchecked) var redaction: Redaction

        init(method: HTTPMethod, url: URL, headers: HTTPFields, body: HTTPBody, options: RequestOptions, redaction: Redaction) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
            self.options = options
            self.redaction = redaction
        }

        func copy() -> Storage {
            Storage(method: method, url: url, headers: headers, body: body, options: options, redaction: redaction)
        }
    }
}
