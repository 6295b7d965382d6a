import Foundation

/// The friendly face of a ``Pipeline``: a base URL, `get`/`post`/…, typed decoding, per-call extra
/// middleware, and a ``Builder`` that adds, removes, replaces or toggles middleware by type.
///
/// ```swift
/// import Foundation
/// import Sluice
/// import SluiceCurl
/// import SluiceLogging
///
/// var builder = Client.Builder(transport: CurlTransport())
/// builder.configuration.baseURL = URL(string: "https://api.example.com/v1/")
/// builder.add(AuditMiddleware())
/// let client = builder.build()
///
/// let user = try await client.get("users/42", as: User.self)
/// let created = try await client.post("users", json: NewUser(name: "Ada"))
///
/// // The same client with debug logging switched off, nothing else re-wired:
/// let quiet = client.rebuilt { $0.setEnabled(false, for: LoggingMiddleware.self) }
/// ```
public struct Client: Sendable {
    /// Settings for calls made through the client.
    public struct Configuration: Sendable {
        /// Relative paths are joined to it (see ``Client/url(for:)``). Absolute URLs are used as they are.
        public var baseURL: URL?
        /// A deadline for each call, the queue, redirects and retries included: a call still running
        /// then throws `.timedOut`. `nil` leaves timing to the transport (and to a per-call
        /// `timeout:` or `deadline:`); so does 100 years or more (`.seconds(.max)`). Zero or less
        /// has passed already: every call is `.timedOut`, nothing sent.
        public var timeout: Duration?
        /// Whether each call records a ``PipelineTrace`` of per-middleware time.
        public var isTracing: Bool
        /// The statuses that the typed calls (`get(_:as:)`, `send(_:decoding:)`, ``Client/validate(_:)``)
        /// accept; others throw `.unacceptableStatus`.
        public var acceptableStatusCodes: Range<Int>
        /// The media types the typed calls accept (`type/subtype`, `type/*`, `*/*`); others throw
        /// `.unacceptableContentType`. `nil` accepts any. The default is
        /// ``defaultAcceptableContentTypes``.
        public var acceptableContentTypes: [String]?
        /// The client's privacy policy: the secrets every stage hides (error messages, log lines,
        /// HAR entries, cache fingerprints) and every cross-origin redirect drops. Each call's
        /// ``HTTPRequest/redaction`` is set from it; a stage's own redaction adds to it.
        /// ``Redaction/default`` unless set; name a secret once here, with
        /// `Redaction.default.adding(headers:parameters:)`.
        public var redaction: Redaction
        /// Decodes bodies in the typed calls.
        public var decoder: JSONDecoder
        /// Encodes `json:` bodies.
        public var encoder: JSONEncoder
        /// The most calls the client runs at once; more wait in a queue, by
        /// ``HTTPRequest/priority`` and then in arrival order. `nil` (the default): no limit. Held
        /// to at least 1.
        public var maxConcurrentRequests: Int?
        /// Whether a cancelled call throws `SluiceError` ``SluiceError/Code/cancelled`` (saying
        /// who cancelled it) instead of `CancellationError`, for callers that treat cancellation
        /// as one more failure.
        public var reportsCancellationAsError: Bool
        /// The most bytes of a response body the client collects for a consumer: the typed calls
        /// (`get(_:as:)`, `send(_:decoding:)`, `send(_:decoder:)`) and what `OpenAPITransport`
        /// hands to generated code. Past it, `.bodyTooLarge` at once: before a byte is read when
        /// `Content-Length` says more, else as the count crosses it. 64 MiB by default; held to at
        /// least 0. A body the caller reads chunk by chunk (`stream(_:)`) is not bounded by it.
        public var maxResponseBodySize: Int
        /// Whether each call runs on the event thread that runs its transfer (the transport's
        /// ``HTTPTransport/preferredExecutor``, as `CurlTransport` offers): the chain, the transfer
        /// and its completion then share one thread, one hop in and one out. When off, a call runs
        /// on the cooperative pool, as its caller does, unless the caller already runs on the
        /// event thread. A middleware of yours that blocks (file or database work done in place)
        /// would hold up every transfer on that thread: move its work off it, or turn this off.
        public var prefersTransportExecutor: Bool

        /// Settings with each value given, or its default.
        public init(
            baseURL: URL? = nil, timeout: Duration? = nil, isTracing: Bool = false,
            acceptableStatusCodes: Range<Int> = 200..<300,
            acceptableContentTypes: [String]? = Configuration.defaultAcceptableContentTypes, redaction: Redaction = .default,
            decoder: JSONDecoder = JSONDecoder(), encoder: JSONEncoder = JSONEncoder(),
            maxConcurrentRequests: Int? = nil, reportsCancellationAsError: Bool = false, maxResponseBodySize: Int = 64 << 20,
            prefersTransportExecutor: Bool = false
        ) {
            self.baseURL = baseURL
            self.timeout = timeout
            self.isTracing = isTracing
            self.acceptableStatusCodes = acceptableStatusCodes
            self.acceptableContentTypes = acceptableContentTypes
            self.redaction = redaction
            self.decoder = decoder
            self.encoder = encoder
            self.maxConcurrentRequests = maxConcurrentRequests
            self.reportsCancellationAsError = reportsCancellationAsError
            self.maxResponseBodySize = maxResponseBodySize
            self.prefersTransportExecutor = prefersTransportExecutor
        }

        /// JSON, HTML, plain text, JavaScript, XML (`application/xml`, `text/xml`) and images; a
        /// structured suffix counts as its base type, so `application/problem+json`,
        /// `application/vnd.api+json` and `application/atom+xml` pass too. Add yours or set `nil`
        /// to accept any.
        public static let defaultAcceptableContentTypes = [
            "application/json", "text/json", "text/javascript", "text/html", "text/plain", "application/xml", "text/xml", "image/*",
        ]

        /// No base URL, no client deadline, tracing off, 2xx and the default media types accepted,
        /// secrets hidden in error messages, default JSON coders, no
        /// concurrency limit, cancellation as `CancellationError`, bodies collected up to 64 MiB.
        public static let `default` = Configuration()
    }

    /// The client's settings.
    public let configuration: Configuration
    /// The composed chain every call goes through.
    public let pipeline: Pipeline
    /// What the client was built from, kept so ``rebuilt(_:)`` can change one thing.
    public let builder: Builder
    /// The client's calls in flight: the concurrency limit, tags, cancellation. Shared by copies
    /// of this client; a client from ``rebuilt(_:)`` has its own.
    let dispatcher: RequestDispatcher

    /// A client over `middlewares`, exactly in the order given (index 0 outermost). They all take
    /// position ``MiddlewarePosition/application``, so a middleware added later through
    /// ``rebuilt(_:)`` is placed by its own position relative to them. Redirects are followed by a
    /// ``RedirectMiddleware`` outside them all, unless the list has one of its own.
    public init(transport: any HTTPTransport, middlewares: [any Middleware] = [], configuration: Configuration = .default) {
        var builder = Builder(transport: transport, configuration: configuration)
        builder.appendInOrder(middlewares)
        self.init(builder: builder)
    }

    init(builder: Builder) {
        self.builder = builder
        self.configuration = builder.configuration
        self.pipeline = Pipeline(
            middlewares: builder.resolvedMiddlewares, transport: builder.transport, baseURL: builder.configuration.baseURL,
            redaction: builder.configuration.redaction, encoder: builder.configuration.encoder)
        self.dispatcher = RequestDispatcher(limit: builder.configuration.maxConcurrentRequests)
    }

    /// A new client made from this one's builder after `change`: toggle debug logging, swap one
    /// middleware, change the base URL. This client is not changed.
    public func rebuilt(_ change: (inout Builder) throws -> Void) rethrows -> Client {
        var builder = self.builder
        try change(&builder)
        return builder.build()
    }

    /// A fresh context for one call: the client's deadline and tracing switch.
    public func makeContext() -> RequestContext {
        RequestContext(deadline: configuration.timeout.flatMap { $0.isUnlimited ? nil : .after($0) }, isTracing: configuration.isTracing)
    }

    /// `context` (or a fresh one) with its deadline moved to the earliest of its own, `now +
    /// timeout` and `deadline`.
    /// A timeout of 100 years or more is no limit (`.seconds(.max)` included), and one of zero or
    /// less has passed already.
    func context(_ context: RequestContext?, timeout: Duration?, deadline: ContinuousClock.Instant?) -> RequestContext {
        var context = context ?? makeContext()
        if let timeout, !timeout.isUnlimited {
            let limit = ContinuousClock.Instant.after(timeout)
            context.deadline = min(context.deadline ?? limit, limit)
        }
        if let deadline { context.deadline = min(context.deadline ?? deadline, deadline) }
        return context
    }

    // MARK: Sending

    /// Sends `request` through the pipeline, once the concurrency limit lets it.
    ///
    /// ```swift
    /// import Sluice
    ///
    /// let response = try await client.send(try client.makeRequest(.get, "feed"), timeout: .seconds(3))
    /// ```
    ///
    /// - Parameters:
    ///   - request: what to send.
    ///   - context: the call's context; by default ``makeContext()``.
    ///   - timeout: the whole call's limit from now: the queue, redirects, retries and their
    ///     back-off included. 100 years or more (`.seconds(.max)`) is no limit; zero or less has
    ///     passed already (`.timedOut`, nothing sent).
    ///   - deadline: the instant the call ends by. The earliest of `timeout`, `deadline` and the
    ///     context's own deadline (the client's ``Configuration/timeout``) applies.
    ///   - extra: middleware for this call only. They run outside (before) the client's own, so a
    ///     header they add is still signed and logged. Only they are linked for the call: the
    ///     client's chain is shared as it is, never rebuilt or attached again.
    /// - Returns: the response, whatever its status.
    /// - Throws: `.timedOut` when the call is still running at its deadline (the transfer is
    ///   cancelled then, wherever it is); `CancellationError` when the call's task is cancelled or
    ///   the call is cancelled through ``cancelAll()`` and its kin (`SluiceError` `.cancelled` with
    ///   ``Configuration/reportsCancellationAsError``).
    public func send(
        _ request: HTTPRequest, context: RequestContext? = nil, timeout: Duration? = nil, deadline: ContinuousClock.Instant? = nil,
        with extra: [any Middleware] = []
    ) async throws -> HTTPResponse {
        // Extra middleware for this call go in front of the client's chain, which is shared as
        // it is: nothing of the client's is linked or attached again.
        let pipeline = extra.isEmpty ? self.pipeline : Pipeline(prepending: extra, to: self.pipeline)
        // The core's own stages, the same `Pipeline.send` runs: before the queue, so a request
        // that cannot be sent fails at once.
        let request = try pipeline.preparation.prepare(request)
        guard timeout != nil || deadline != nil || configuration.timeout != nil || context?.deadline != nil else {
            // No limit (the common call): no clock read, no watchdog, the smallest async frame.
            return try await dispatch(request, context: context ?? makeContext(), through: pipeline)
        }
        return try await sendLimited(request, context: context, timeout: timeout, deadline: deadline, through: pipeline)
    }

    /// `send` for a call with a limit: the earliest one, kept by a watchdog.
    private func sendLimited(
        _ request: HTTPRequest, context: RequestContext?, timeout: Duration?, deadline: ContinuousClock.Instant?, through pipeline: Pipeline
    ) async throws -> HTTPResponse {
        let start = ContinuousClock.now  // for the watchdog's message
        let context = self.context(context, timeout: timeout, deadline: deadline)
        guard let deadline = context.deadline else { return try await dispatch(request, context: context, through: pipeline) }
        // Every stage obeys the deadline where it waits on the network; this ends the waits that
        // are not the network's (the queue, a token refresh, a middleware of the app's own).
        let limit = Self.seconds(start.duration(to: deadline))
        let timedOut = { SluiceError(.timedOut, "\(request) did not finish within its deadline (\(limit) from the call's start)", stage: .client) }
        // A deadline already past (a timeout of zero or less): nothing is sent.
        guard ContinuousClock.now < deadline else { throw timedOut() }
        return try await Deadline.race(deadline, timedOut: timedOut) {
            try await self.dispatch(request, context: context, through: pipeline)
        }
    }

    /// Runs a prepared `request` through `pipeline` once the concurrency limit lets it.
    private func dispatch(_ request: HTTPRequest, context: RequestContext, through pipeline: Pipeline) async throws -> HTTPResponse {
        // A caller that runs on the transport's event thread (see `HTTPTransport.preferredExecutor`)
        // keeps its call there: the chain, the transfer and the way back never change threads.
        // Anyone else's call runs on the cooperative pool, as the caller does: moving every call
        // onto the event thread measured no faster, and would make a middleware that blocks
        // hold up every transfer.
        let executor = configuration.prefersTransportExecutor || EventThread.isCurrent ? pipeline.transport.preferredExecutor : nil
        return try await dispatcher.run(request, on: executor, cancellationIsError: configuration.reportsCancellationAsError) {
            try await pipeline.sendPrepared(request, context: context)
        }
    }

    /// `2 s`, `0.25 s`.
    private static func seconds(_ duration: Duration) -> String {
        let milliseconds = max(0, duration.wholeMilliseconds)
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(Double(milliseconds) / 1000) s"
    }

    /// A request for `path` (relative to the base URL, or absolute).
    ///
    /// - Throws: `.invalidURL` when `path` is not a URL or is relative with no base URL;
    ///   `.invalidHeader` when a field of the `headers` literal was invalid
    ///   (``HTTPFields/invalidLiteral``).
    public func makeRequest(
        _ method: HTTPMethod, _ path: String, headers: HTTPFields = [:], body: HTTPBody = .empty
    ) throws(SluiceError) -> HTTPRequest {
        var request = HTTPRequest(method: method, url: try url(for: path), headers: try headers.validated(), body: body)
        if !configuration.redaction.isSame(as: .default) { request.redaction = configuration.redaction }
        return request
    }

    /// A request whose body is `value` as JSON, encoded by the configured encoder, with
    /// `Content-Type: application/json` unless `headers` already has a content type.
    ///
    /// - Throws: `.invalidBody` when `value` cannot be encoded; `.invalidURL` as ``makeRequest(_:_:headers:body:)``.
    public func jsonRequest(
        _ method: HTTPMethod, _ path: String, _ value: some Encodable, headers: HTTPFields = [:]
    ) throws(SluiceError) -> HTTPRequest {
        var request = try makeRequest(method, path, headers: headers)
        let contentType = request.headers["Content-Type"]
        do {
            try request.setJSONBody(value, encoder: configuration.encoder)
        } catch {
            var error = error
            error.stage = .client
            throw error
        }
        if let contentType { try request.headers.set(name: "Content-Type", value: contentType) }
        return request
    }
}
