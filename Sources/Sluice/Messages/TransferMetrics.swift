/// Timings and counts of one exchange, as the transport measured them (for curl, from
/// `curl_easy_getinfo`). Every duration is measured from the start of the transfer.
///
/// ```swift
/// import Sluice
///
/// if let m = response.metrics {
///     print("dns \(m.nameLookup ?? .zero), ttfb \(m.firstByte ?? .zero), total \(m.total)")
/// }
/// ```
public struct TransferMetrics: Sendable, Hashable {
    /// Until the host name was resolved.
    public var nameLookup: Duration?
    /// Until the TCP connection was made.
    public var connect: Duration?
    /// Until the TLS handshake finished (`nil` for plain HTTP).
    public var tlsHandshake: Duration?
    /// Until the first response byte arrived.
    public var firstByte: Duration?
    /// The whole exchange, redirects included.
    public var total: Duration
    /// How many redirects were followed.
    public var redirectCount: Int
    /// Bytes of request body sent.
    public var bytesSent: Int64
    /// Bytes of response body received.
    public var bytesReceived: Int64
    /// `"1.1"`, `"2"`, … when known.
    public var httpVersion: String?
    /// The peer's IP address when known.
    public var remoteAddress: String?
    /// Whether an existing connection was reused, when known.
    public var reusedConnection: Bool?
    /// The request's head (request line and header lines, CRLF-separated) exactly as the
    /// transport wrote it, when it was asked to record it (`CurlTransport`'s
    /// `recordsRequestHeads`): what middleware and curl added, `Host` with its port, the HTTP
    /// version used. It holds credentials in clear: show it only through ``Redaction``.
    public var requestHead: String?

    /// Metrics with these figures (a transport fills them in).
    public init(
        nameLookup: Duration? = nil, connect: Duration? = nil, tlsHandshake: Duration? = nil,
        firstByte: Duration? = nil, total: Duration, redirectCount: Int = 0,
        bytesSent: Int64 = 0, bytesReceived: Int64 = 0, httpVersion: String? = nil,
        remoteAddress: String? = nil, reusedConnection: Bool? = nil, requestHead: String? = nil
    ) {
        self.nameLookup = nameLookup
        self.connect = connect
        self.tlsHandshake = tlsHandshake
        self.firstByte = firstByte
        self.total = total
        self.redirectCount = redirectCount
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.httpVersion = httpVersion
        self.remoteAddress = remoteAddress
        self.reusedConnection = reusedConnection
        self.requestHead = requestHead
    }
}
