import Foundation

/// An HTTP response: status, headers and body, with where it came from and how it was fetched.
///
/// ```swift
/// let response = try await client.get("/users/42")
/// response.status.isSuccess          // true
/// response.headers["Content-Type"]   // "application/json"
/// response.text                      // the body as UTF-8
/// response.source                    // .network, .cache or .revalidated
/// response.metrics?.firstByte        // time to first byte, from curl
/// ```
public struct HTTPResponse: Sendable, CustomStringConvertible {
    public var status: HTTPStatus
    public var headers: HTTPFields
    /// The body in memory; empty when it was streamed to ``bodyFile``.
    public var body: Data
    /// Where the body was written, for downloads.
    public var bodyFile: URL?
    /// The request as it was finally sent, after every middleware changed it. The pipeline fills it
    /// in when the transport does not.
    public var request: HTTPRequest?
    /// Timings and sizes measured by the transport.
    public var metrics: TransferMetrics?
    /// Network, cache or revalidated.
    public var source: ResponseSource
    /// Each middleware's own time, when tracing was on.
    public var trace: PipelineTrace?

    public init(status: HTTPStatus, headers: HTTPFields = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
        self.source = .network
    }

    /// The body decoded as UTF-8, or `nil` when it is not valid UTF-8.
    public var text: String? { String(data: body, encoding: .utf8) }

    /// `"200 OK (1024 bytes, network)"`.
    public var description: String { "\(status) (\(body.count) bytes, \(source))" }
}
