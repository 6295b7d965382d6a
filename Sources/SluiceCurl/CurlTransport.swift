import CCurl
import CCurlShim
import Foundation
import Sluice

/// The libcurl terminal handler: moves requests over HTTP/1.1 and HTTP/2 with connection reuse.
///
/// One `curl_multi` handle is driven by one event thread (or one per thread, with
/// ``Configuration/eventThreads``). Easy handles are pooled, connections kept alive and reused,
/// and a share handle holds the DNS and TLS-session caches.
///
/// The transport makes one exchange per call and never follows a redirect itself: a 3xx is
/// returned as it is, and `RedirectMiddleware` (in every `Client` by default)
/// follows it hop by hop through the chain, so each hop is cached, retried and signed for its own
/// target, and credentials never reach another origin.
///
/// ```swift
/// import Foundation
/// import Sluice
/// import SluiceCurl
///
/// let transport = CurlTransport()                                    // .default configuration
/// let pipeline = Pipeline(middlewares: [TenantMiddleware(tenant: "acme")], transport: transport)
/// let response = try await pipeline.send(HTTPRequest(url: URL(string: "https://example.com")!))
///
/// var configuration = CurlTransport.Configuration.default
/// configuration.httpVersion = .http2
/// configuration.tls.pinnedPublicKey = "sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE="
/// let pinned = CurlTransport(configuration: configuration)
/// ```
///
/// For the lowest latency, run the caller on the transport's event thread, so a request and its
/// resumption never change threads:
///
/// ```swift
/// import Sluice
/// import SluiceCurl
///
/// let transport = CurlTransport()
/// let pipeline = Pipeline(middlewares: [], transport: transport)
/// let response = try await withTaskExecutorPreference(transport.executor) {
///     try await pipeline.send(request)
/// }
/// ```
///
/// Cancelling the calling task aborts the transfer and throws `CancellationError`. Failures throw
/// `SluiceError` with the matching code (`.dnsFailure`, `.cannotConnect`, `.timedOut`,
/// `.tlsFailure`, `.bodyTooLarge`, `.connectionLost`, `.invalidResponse`, …)
/// and a ``CurlError`` as the underlying error.
public final class CurlTransport: HTTPTransport {
    /// How the transport connects and what it accepts. Immutable once the transport is made.
    public struct Configuration: Sendable {
        /// Which HTTP version to speak.
        public enum HTTPVersion: Hashable, Sendable {
            /// HTTP/1.1 only.
            case http1_1
            /// HTTP/2 over TLS when the server offers it (ALPN), HTTP/1.1 otherwise.
            case http2
            /// HTTP/2 without TLS and without upgrade (h2c "prior knowledge"). With libcurl older
            /// than 8.0.0 (Debian 12 has 7.88.1) each request opens its own connection, because
            /// those versions break a reused h2c connection (curl issue #10634).
            case http2PriorKnowledge
        }

        /// TLS settings.
        public struct TLS: Sendable {
            /// Verify the server's certificate and host name. On by default; turning it off is
            /// insecure, and the transport says so through ``Configuration/warningSink`` when it
            /// is made.
            public var verifyPeer: Bool = true
            /// A PEM file of CA certificates to trust instead of the system's.
            public var caFile: String?
            /// A folder of CA certificates (hashed names, `c_rehash`).
            public var caDirectory: String?
            /// A client certificate: PEM or P12.
            public var clientCertificate: ClientCertificate?
            /// A pinned public key: `sha256//base64…` (several joined with `;`).
            public var pinnedPublicKey: String?
            /// The lowest TLS version accepted.
            public var minimumVersion: MinimumVersion = .tls1_2

            /// The oldest TLS version accepted.
            public enum MinimumVersion: Hashable, Sendable {
                /// TLS 1.2.
                case tls1_2
                /// TLS 1.3.
                case tls1_3
            }

            /// A client certificate file and how to read it.
            public struct ClientCertificate: Sendable {
                /// How a client certificate is stored.
                public enum Format: String, Sendable {
                    /// PEM.
                    case pem = "PEM"
                    /// PKCS #12.
                    case p12 = "P12"
                }

                /// Where the certificate is.
                public var path: String
                /// The certificate's format.
                public var format: Format
                /// The private key file, for PEM when it is separate from the certificate.
                public var keyPath: String?
                /// The password of the key or the P12 file.
                public var password: String?

                /// The certificate at `path`, in `format`, with its key at `keyPath` and its password, when they are apart.
                public init(path: String, format: Format, keyPath: String? = nil, password: String? = nil) {
                    self.path = path
                    self.format = format
                    self.keyPath = keyPath
                    self.password = password
                }
            }

            /// Verified TLS 1.2 or later, the system's CAs, no client certificate, no pin.
            public init() {}

            /// Verify peers with the system's CA store, TLS 1.2 or later.
            public static let `default` = TLS()
        }

        /// Longest wait for a connection (TCP and TLS); zero or less is curl's own, 300 s.
        public var connectTimeout: Duration = .seconds(10)
        /// Longest time for a whole exchange; `nil` (or 100 years or more) for no limit beyond the
        /// context's deadline. Zero or less has passed already: `.timedOut`, nothing sent.
        public var requestTimeout: Duration? = nil
        /// Abort with `.timedOut` when no byte moves either way for this long (whole seconds, at
        /// least 1), as OkHttp's read timeout does: a server that goes silent never hangs a call
        /// forever. 60 s by default; `nil` for none. ``lowSpeedLimit``, when set, replaces it.
        public var idleTimeout: Duration? = .seconds(60)
        /// Abort when fewer than `bytesPerSecond` flow for `duration` (curl's low-speed limit).
        public var lowSpeedLimit: (bytesPerSecond: Int, duration: Duration)? = nil
        /// Largest response body kept in memory, in bytes, after curl undid any coding; larger
        /// bodies fail with `.bodyTooLarge`. A body written to a file
        /// (`HTTPRequest.responseBodyFile`) has ``maxDecodedFileSize`` instead.
        public var maxResponseBodySize: Int = 64 << 20
        /// Largest body written to a file when curl undoes a coding to write it (a
        /// `Transfer-Encoding` such as `gzip`, or a `Content-Encoding` with
        /// ``decodesContentEncoding``): 1 GiB by default, so 1 KB of nested gzip cannot fill a disk.
        /// A body written as it came has no limit (the caller asked for that file).
        public var maxDecodedFileSize: Int64 = 1 << 30
        /// Most decoded bytes per byte received when curl undoes a coding (a `Transfer-Encoding`
        /// such as `gzip`, which curl undoes unasked, or a `Content-Encoding` with
        /// ``decodesContentEncoding``), wherever the body goes: memory, a file or a stream. The
        /// first MiB is always allowed; past it, `.bodyTooLarge` at once. 1,000 by default (what
        /// deflate reaches at best); held to at least 1.
        public var maxDecodingRatio: Int = 1_000
        /// Largest header section of a response, its field lines together (interim 1xx sections
        /// included): 256 KiB by default, as OkHttp's; more fails at once with `.responseTooLarge`.
        public var maxHeaderSectionSize: Int = 256 << 10
        /// Largest trailer section after a chunked body: 64 KiB by default.
        public var maxTrailerSectionSize: Int = 64 << 10
        /// Most trailer fields after a chunked body: 64 by default.
        public var maxTrailerCount: Int = 64
        /// Most bytes of chunk extensions a chunked HTTP/1.1 body may carry (counted as the
        /// framing beyond 6 bytes per body byte, from the connection's own byte count): 64 KiB by
        /// default. curl ignores extensions, so without it an endless one would keep a call reading
        /// for ever without a body byte.
        public var maxChunkExtensionSize: Int = 64 << 10
        /// Most connections open at once (0: no limit).
        public var maxConnections: Int = 0
        /// Most connections to one host at once (0: no limit).
        public var maxConnectionsPerHost: Int = 0
        /// The HTTP version to speak.
        public var httpVersion: HTTPVersion = .http2
        /// TLS settings.
        public var tls: TLS = .default
        /// A proxy URL (`http://proxy:3128`, `socks5h://…`); `nil` uses none (the `http_proxy`
        /// environment variables are ignored unless set here).
        public var proxy: String?
        /// Hosts that bypass the proxy, comma-separated (curl's `NOPROXY`).
        public var noProxy: String?
        /// Let curl ask for and decode `gzip`/`deflate`/`br` itself. Off by default: the gzip
        /// middleware owns content coding, and the response keeps its `Content-Encoding`.
        public var decodesContentEncoding: Bool = false
        /// How many idle easy handles to keep for reuse (per event thread).
        public var idleHandlePoolSize: Int = 64
        /// How many open connections each event thread keeps for reuse once their transfers end
        /// (curl's connection cache, `CURLMOPT_MAXCONNECTS`); the oldest is closed past it.
        /// curl's own default follows the transfers in flight, and closed and reopened about 90
        /// connections in 10,000 requests at 16 in flight.
        public var maxIdleConnections: Int = 256
        /// The `User-Agent` sent when a request has none of its own; `nil` sends none. A value no
        /// field may hold (a line break, a NUL) fails each request with `.invalidHeader` before
        /// anything is sent.
        public var userAgent: String? = CurlTransport.defaultUserAgent
        /// Fields curl adds by default (`Accept: */*`, `Host`) that are left out of a request that
        /// has none of its own, as httpie's `Header:` asks. `Expect` and `User-Agent` have
        /// settings of their own.
        public var omittedDefaultFields: [String] = []
        /// curl's cookie engine, off by default: cookies the servers set are kept and sent back
        /// by curl's rules (domain, path, expiry, `Secure`), shared by every event thread, in
        /// memory or in a Netscape cookie file that is loaded at start and saved whenever a
        /// response sets a cookie. See ``CurlTransport/cookies``.
        public var cookieJar: CookieJar?
        /// Whether each response's `TransferMetrics.requestHead` holds the request's head as
        /// curl wrote it to the wire (curl's debug callback, with its verbose mode, runs for every
        /// transfer then). Off by default; the `sluice` command turns it on to print what was sent.
        public var recordsRequestHeads: Bool = false
        /// Credentials for HTTP Digest challenges from one origin; see ``DigestCredentials``.
        public var digestCredentials: DigestCredentials?
        /// How many event threads, each driving its own `curl_multi` handle, connection pool and
        /// DNS/TLS-session cache. One is right for an app; a process that sends many requests at
        /// once can use one per core. A request goes to the thread the caller runs on (see
        /// ``CurlTransport/executors``), else to the thread with the fewest transfers in flight,
        /// the first on a tie, so sequential requests keep reusing one connection. The connection
        /// limits apply to each thread.
        public var eventThreads: Int = 1
        /// Names resolved before (and instead of) DNS, curl's `--resolve`: see ``ResolveEntry``.
        /// An entry that is not a host name, a TCP port and IP addresses fails every request with
        /// `.misconfigured` naming it.
        public var resolve: [ResolveEntry] = []
        /// Connections for a host and port sent elsewhere, curl's `--connect-to`: see
        /// ``ConnectTo``. A request's own `HTTPRequest.connectTo` takes its place.
        public var connectTo: [ConnectTo] = []
        /// How long a name curl resolved is kept before it asks DNS again (60 s, curl's default),
        /// 0...100 years; `nil` keeps it for the event thread's life. The cache, the circuit
        /// breaker and the limits still key by the URL's name, whatever it resolves to.
        public var dnsCacheLifetime: Duration? = .seconds(60)
        /// A DNS-over-HTTPS server (RFC 8484) that resolves names instead of the system's resolver,
        /// curl's `--doh-url`: `https://dns.example/dns-query`. Its certificate is always verified,
        /// against ``Configuration/tls``'s CA file when it names one, even when verification is
        /// turned off for requests; ``resolve`` entries still come first. `nil` (the default) uses the system's resolver. A URL that is not `https`
        /// fails every request with `.misconfigured`.
        public var dnsOverHTTPS: URL?
        /// How long a connection over IPv6 gets before one over IPv4 is tried beside it (Happy
        /// Eyeballs, RFC 8305): 200 ms, curl's default; 0...100 years.
        public var happyEyeballsDelay: Duration = .milliseconds(200)
        /// The local interface or address connections go out from, as curl's `--interface` takes
        /// it: `eth1`, `if!eth1` (an interface only), `host!10.0.0.5` (an address only).
        public var localInterface: String?
        /// Where the transport reports settings that make it insecure (TLS verification turned
        /// off), once, when it is made. Standard error by default (``standardErrorWarnings``);
        /// an app can send them to its own log instead.
        public var warningSink: @Sendable (String) -> Void = Configuration.standardErrorWarnings

        /// The defaults; see ``default``.
        public init() {}

        /// Writes `sluice: warning: <message>` to standard error.
        public static let standardErrorWarnings: @Sendable (String) -> Void = { message in
            SystemFile.warn("sluice: warning: \(message)")
        }

        /// What is insecure about this configuration, one sentence each; empty when nothing is.
        public var insecurities: [String] {
            tls.verifyPeer
                ? []
                : [
                    "TLS verification is off (tls.verifyPeer = false): certificates and host names are not checked, so anyone on the path can read and change the traffic"
                ]
        }

        /// Where a transport keeps cookies.
        public enum CookieJar: Sendable, Hashable {
            /// For the transport's lifetime.
            case memory
            /// In this Netscape cookie file (curl's and wget's format), across runs.
            case file(String)
        }

        /// 10 s connect timeout, no overall limit, 60 s idle timeout, 64 MiB in memory, HTTP/2 where
        /// offered, verified TLS 1.2+, no proxy, no content decoding.
        public static let `default` = Configuration()
    }

    /// The options curl acts on: `HTTPRequest.maxResponseBodySize` and
    /// `HTTPRequest.streamsResponseBody` (the body fed to a stream as it arrives, curl
    /// paused while its reader is 256 KiB behind).
    public static let readsOptions: [any RequestOptionKey.Type] = [MaxResponseBodySizeKey.self, StreamsResponseBodyKey.self, ConnectToKey.self]

    /// How it behaves.
    public let configuration: Configuration
    let loops: [CurlEventLoop]
    /// What each transfer takes from ``configuration``, read once.
    let transferSettings: CurlTransfer.Settings
    let cookieJar: CurlCookieJar?

    /// A transport with its own event threads and connection pools. Settings are held to what
    /// curl and this machine can take: 1...64 event threads; timeouts to 0...100 years (a
    /// `requestTimeout` of 100 years or more is none; a connect timeout of zero or less is curl's
    /// own, 300 s); a low-speed limit to at least 0 bytes a second; sizes, counts and limits of 0
    /// or less allow nothing (a body of one byte is `.bodyTooLarge`), and connection counts of 0
    /// or less are curl's defaults.
    public init(configuration: Configuration = .default) {
        var configuration = configuration
        configuration.eventThreads = configuration.eventThreads.clamped(to: 1...64)
        configuration.connectTimeout = configuration.connectTimeout.clampedWait
        configuration.requestTimeout = configuration.requestTimeout.flatMap { $0.isUnlimited ? nil : $0.clampedWait }
        configuration.idleTimeout = configuration.idleTimeout.map(\.clampedWait)
        configuration.lowSpeedLimit = configuration.lowSpeedLimit.map { (max(0, $0.bytesPerSecond), $0.duration.clampedWait) }
        self.configuration = configuration
        self.transferSettings = CurlTransfer.Settings(configuration)
        let jar = configuration.cookieJar.map(CurlCookieJar.init)
        self.cookieJar = jar
        self.loops = (0..<configuration.eventThreads).map { CurlEventLoop(configuration: configuration, index: $0, cookieJar: jar) }
        for warning in configuration.insecurities { configuration.warningSink(warning) }
    }

    /// The cookies in the jar, one Netscape cookie-file line each; empty without a jar.
    ///
    /// ```swift
    /// import SluiceCurl
    ///
    /// var configuration = CurlTransport.Configuration()
    /// configuration.cookieJar = .file("/var/lib/app/cookies.txt")
    /// let transport = CurlTransport(configuration: configuration)
    /// // … after a login …
    /// transport.cookies   // ["api.example.com\tFALSE\t/\tTRUE\t0\tsession\tabc123"]
    /// ```
    public var cookies: [String] { cookieJar?.lines ?? [] }

    /// Adds cookies to the jar, one Netscape cookie-file line each, as ``cookies`` gives them (a
    /// line curl cannot read is left out); nothing without a jar. A file-backed jar is saved.
    ///
    /// ```swift
    /// import SluiceCurl
    ///
    /// var configuration = CurlTransport.Configuration()
    /// configuration.cookieJar = .memory
    /// let transport = CurlTransport(configuration: configuration)
    /// try transport.addCookies(["api.example.com\tFALSE\t/\tTRUE\t0\tsession\tabc123"])   // what an earlier `cookies` gave
    /// ```
    ///
    /// - Throws: `.writeFailed` when a file-backed jar cannot be written.
    public func addCookies(_ lines: [String]) throws(SluiceError) {
        cookieJar?.add(lines)
        try cookieJar?.save()
    }

    /// Forgets every cookie (a sign-out). A file-backed jar is saved empty.
    public func clearCookies() throws(SluiceError) {
        cookieJar?.clear()
        try cookieJar?.save()
    }

    /// Writes a file-backed jar now (it is also saved whenever a response sets a cookie, and
    /// when the transport goes away).
    ///
    /// - Throws: `.writeFailed` when the file cannot be written.
    public func saveCookies() throws(SluiceError) {
        try cookieJar?.save()
    }

    deinit { for loop in loops { loop.shutdown() } }

    /// This transport's connections and the transfers waiting for one, by origin, counted on each
    /// event thread and added up: open, busy (carrying a transfer or being made for one) and idle
    /// connections, and transfers still resolving, connecting or waiting under
    /// ``Configuration/maxConnectionsPerHost``. It waits for each thread's turn, so call it from a
    /// metrics reporter, not per request.
    ///
    /// ```swift
    /// import Sluice
    /// import SluiceCurl
    ///
    /// let transport = CurlTransport()
    /// let idle = await transport.poolStatistics().reduce(0) { $0 + $1.idleConnections }
    /// ```
    public func poolStatistics() async -> [PoolStatistics] {
        var total: [String: PoolStatistics] = [:]
        for loop in loops {
            let counted = await withCheckedContinuation { continuation in
                loop.submit(.countPool { continuation.resume(returning: $0) })
            }
            for (origin, figures) in counted {
                total[origin, default: PoolStatistics(origin: origin)].add(figures)
            }
        }
        return total.values.sorted { $0.origin < $1.origin }
    }

    /// The first event thread as a task executor: run callers on it with
    /// `withTaskExecutorPreference`, so a request and its resumption never change threads.
    public var executor: any TaskExecutor { loops[0] }

    /// Every event thread as a task executor (``Configuration/eventThreads`` of them): spread
    /// concurrent callers over them, one executor per task.
    public var executors: [any TaskExecutor] { loops }

    /// How many HTTP/1.x connections the caller's event thread shut down because bytes were left
    /// on them when a request was about to reuse them; nil off an event thread. For tests.
    package var droppedConnectionsOnThisThread: Int? {
        loops.first(where: \.isCurrentThread)?.droppedConnections
    }

    /// The event thread the next call should run on: the caller's own, else the least busy.
    public var preferredExecutor: (any TaskExecutor)? { chooseLoop() }

    /// The loop for a new request: the caller's own, else the least busy (the first on a tie).
    private func chooseLoop() -> CurlEventLoop {
        if loops.count == 1 { return loops[0] }
        var best = loops[0], bestLoad = Int.max
        for loop in loops {
            if loop.isCurrentThread { return loop }
            let load = loop.load.load(ordering: .relaxed)
            if load < bestLoad { best = loop; bestLoad = load }
        }
        return best
    }

    /// `Sluice/<version> libcurl/<version>`, e.g. `Sluice/0.1.0 libcurl/7.88.1`.
    public static var defaultUserAgent: String { "Sluice/\(SluiceVersion.current) libcurl/\(curlVersion)" }

    /// The libcurl version this transport runs on, e.g. `"7.88.1"`.
    public static var curlVersion: String {
        String(cString: sluice_curl_version_number())
    }

    public func send(_ request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
        try Task.checkCancellation()
        try Self.validate(request)
        // Framing is the transport's (THREATS §17): a framing field a middleware added is checked
        // against the body as sent and left to curl, which writes its own.
        let request = request.carriesFramingFields ? try request.withFramingFromBody() : request
        if context.isPastDeadline {
            throw SluiceError(.timedOut, "the deadline passed before \(request) was sent")
        }
        if let limit = configuration.requestTimeout, limit <= .zero {
            throw SluiceError(
                .timedOut, "CurlTransport.Configuration.requestTimeout is \(limit): no time at all, so \(request) was not sent (nil is no limit)")
        }
        let transfer = CurlTransfer(request: request, context: context, settings: transferSettings, loop: chooseLoop())
        do {
            return try await run(transfer)
        } catch {
            // A stream an HTTP/2 GOAWAY refused was never processed (RFC 9113 §6.8): it goes
            // once more, on a new connection, whatever its method, when its body can be sent
            // again. The caller never sees the framing error for it.
            guard transfer.unprocessedByPeer, request.body.isReplayable, !Task.isCancelled, !context.isPastDeadline else { throw error }
            return try await run(CurlTransfer(request: request, context: context, settings: transferSettings, loop: chooseLoop()))
        }
    }

    /// Runs `transfer` on its loop and waits for its response.
    private func run(_ transfer: CurlTransfer) async throws -> HTTPResponse {
        // A streamed body is fed by this transport's threads: its stream keeps the transport alive.
        if transfer.streamsBody { transfer.streamOwner = self }
        let loop = transfer.loop
        // The response (or error) is made on the loop thread; `finish` releases it to this task.
        defer { ThreadSanitizer.acquire(transfer) }
        return try await withTaskCancellationHandler {
            // Resumed exactly once, on the loop thread: `CurlTransfer.finish` clears it first.
            try await withUnsafeThrowingContinuation { continuation in
                transfer.continuation = continuation
                loop.load.add(1, ordering: .relaxed)
                loop.submit(.start(transfer))
            }
        } onCancel: {
            transfer.requestCancel()
            transfer.loop.submit(.cancel(transfer))
        }
    }

    /// What the URL text starts with, read from its bytes: `http://` or `https://` (any case of
    /// the scheme), another `http` or `https` form (`http:/x`, `http:x`), or anything else.
    enum SchemeStart: Equatable {
        case hierarchical, noAuthority, other
    }

    /// Whether `url` starts with `http:` or `https:` (any case), and whether `//` follows.
    static func schemeStart(_ url: String) -> SchemeStart {
        var url = url
        return url.withUTF8 { bytes in
            guard bytes.count >= 5, bytes[0] | 0x20 == 0x68, bytes[1] | 0x20 == 0x74, bytes[2] | 0x20 == 0x74,
                bytes[3] | 0x20 == 0x70
            else { return .other }  // "http"
            var colon = 4
            if bytes[4] != 0x3A {  // not "http:", so "https:" or nothing
                guard bytes.count >= 6, bytes[4] | 0x20 == 0x73, bytes[5] == 0x3A else { return .other }
                colon = 5
            }
            return bytes.count >= colon + 3 && bytes[colon + 1] == 0x2F && bytes[colon + 2] == 0x2F ? .hierarchical : .noAuthority
        }
    }

    /// Refuses a request whose URL is not `http` or `https`, or has no host, before curl sees it
    /// (`.invalidURL`), and one with a field no request may carry (`.invalidHeader`).
    static func validate(_ request: HTTPRequest) throws(SluiceError) {
        try request.headers.validated()
        // Scheme and host only: the URL a signer's query was added to has the same.
        let url = request.authorityURL
        let start = Self.schemeStart(url.absoluteString)
        guard start != .other else {
            throw SluiceError(
                .invalidURL,
                "\(request.redaction.url(url)) has scheme \(String(reflecting: url.scheme ?? "")); only http and https are allowed"
            )
        }
        // `http:/host/x` has no host for Foundation, and curl would guess one: never sent.
        guard start == .hierarchical, let host = url.host(percentEncoded: true), !host.isEmpty else {
            throw SluiceError(.invalidURL, "\(request.redaction.url(url)) has no host: an http URL is written http://host/path")
        }
    }
}
