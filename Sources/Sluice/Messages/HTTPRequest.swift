import Foundation
import Synchronization

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
        get {
            switch storage.target {
            case .url(let url): url
            case .text(let text): text.url
            }
        }
        _modify {
            makeUnique()
            var url = self.url
            defer { storage.target = .url(url) }
            yield &url
        }
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

    /// The privacy policy this request is held to: ``Redaction/default``, the floor no request
    /// can lower, plus what ``redaction`` adds. The one place that rule is written; a stage that
    /// asks whether a field or parameter is a secret asks this. `package`: for Sluice's stages.
    package var privacyPolicy: Redaction { Redaction.default.adding(redaction) }

    /// A request for `url` with `method`, `headers` and `body`.
    public init(method: HTTPMethod = .get, url: URL, headers: HTTPFields = [:], body: HTTPBody = .empty) {
        storage = Storage(method: method, target: .url(url), headers: headers, body: body, options: RequestOptions(), redaction: .default)
    }

    /// `"GET https://example.com/path"`.
    /// The method and the URL as the request's ``redaction`` shows it: no password or secret query
    /// value, so a message or log line that quotes a request never carries one.
    public var description: String { "\(method) \(redaction.url(text: urlText))" }

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
        @exclusivity(unchecked) var target: Target
        @exclusivity(unchecked) var headers: HTTPFields
        @exclusivity(unchecked) var body: HTTPBody
        @exclusivity(unchecked) var options: RequestOptions
        @exclusivity(unchecked) var redaction: Redaction

        init(method: HTTPMethod, target: Target, headers: HTTPFields, body: HTTPBody, options: RequestOptions, redaction: Redaction) {
            self.method = method
            self.target = target
            self.headers = headers
            self.body = body
            self.options = options
            self.redaction = redaction
        }

        func copy() -> Storage {
            Storage(method: method, target: target, headers: headers, body: body, options: options, redaction: redaction)
        }
    }

    /// The request's URL: as set, or as the text a stage built, made a `URL` only when someone
    /// reads ``url`` (a signer's query sent by the transport as text is never parsed again).
    enum Target: Sendable {
        case url(URL)
        case text(URLText)
    }

    /// The URL's text, as ``HTTPRequest/url``'s `absoluteString` would give it: what the transport
    /// sends, what a log line shows. Reading it never parses a URL. `package`: for the transport
    /// and the stages that only show or send the URL.
    package var urlText: String {
        switch storage.target {
        case .url(let url): url.absoluteString
        case .text(let text): text.text
        }
    }

    /// A URL with the request's scheme and authority: ``url`` itself, or for a URL kept as text,
    /// the one its query was added to. For checks that read neither path nor query (the scheme,
    /// the host, the origin, user information), without parsing the text. `package`.
    package var authorityURL: URL {
        switch storage.target {
        case .url(let url): url
        case .text(let text): text.base
        }
    }

    /// Adds `encodedPairs` (`name=value&…`) to the URL's query, as ``URLQuery/appending(_:to:)``
    /// does. When every byte of them is one a query may hold as it is (RFC 3986's unreserved
    /// characters, `%XX`, `=` and `&`: a signer's strictly encoded pairs), the URL is kept as its
    /// text and parsed only if ``url`` is read; the transport sends the text. `package`: for
    /// stages that add parameters to every request.
    ///
    /// - Throws: `.invalidURL` when other bytes make an invalid URL.
    package mutating func appendQuery(encoded encodedPairs: String) throws(SluiceError) {
        guard !encodedPairs.isEmpty else { return }
        guard URLQuery.isStrictlyEncoded(encodedPairs) else {
            url = try URLQuery.appending(encodedPairs, to: url)
            return
        }
        // The URL with this scheme and authority, without parsing a text form again when pairs are
        // added twice: adding to the query changes neither.
        let base = authorityURL
        let text = URLQuery.appendingText(encodedPairs, to: urlText)
        makeUnique()
        storage.target = .text(URLText(text, base: base))
    }
}

/// A URL kept as its text, parsed on first read. The parsed URL is published once, atomically,
/// so requests that share the text (copies share their storage) may read it from any task; two
/// first reads at once both parse, and both get the one published.
final class URLText: Sendable {
    let text: String
    /// The URL the first query was added to (its scheme and authority are the text's): for the
    /// checks that read only those, and what a read gives should the parser refuse the text,
    /// which `HTTPRequest.appendQuery(encoded:)` rules out by what it lets through.
    let base: URL
    private let parsed = AtomicLazyReference<Parsed>()

    /// A box for the parsed URL, which `AtomicLazyReference` needs a class for.
    private final class Parsed: Sendable {
        let url: URL
        init(_ url: URL) { self.url = url }
    }

    init(_ text: String, base: URL) {
        self.text = text
        self.base = base
    }

    /// The URL, parsed on the first read.
    var url: URL {
        if let parsed = parsed.load() { return parsed.url }
        return parsed.storeIfNil(Parsed(URL(string: text) ?? base)).url
    }
}
