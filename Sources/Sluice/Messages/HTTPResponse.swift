import Foundation

/// An HTTP response: status, headers and body, with where it came from and how it was fetched.
///
/// ```swift
/// import Sluice
///
/// let response = try await client.get("/users/42")
/// response.status.isSuccess          // true
/// response.headers["Content-Type"]   // "application/json"
/// response.text                      // the body as UTF-8
/// response.source                    // .network, .cache or .revalidated
/// response.metrics?.firstByte        // time to first byte, from curl
/// ```
public struct HTTPResponse: Sendable, CustomStringConvertible {
    /// The status code and reason phrase.
    public var status: HTTPStatus {
        get { storage.status }
        _modify { makeUnique(); yield &storage.status }
    }

    /// The header fields, in order, repeated names kept.
    public var headers: HTTPFields {
        get { storage.headers }
        _modify { makeUnique(); yield &storage.headers }
    }

    /// The trailer fields that came after a chunked body (RFC 9110 §6.5), kept apart from
    /// ``headers``: a trailer never changes how the response is cached or read (a trailer
    /// `Cache-Control` is not the response's). Empty when there were none, and for a streamed body.
    public var trailers: HTTPFields {
        get { storage.trailers }
        _modify { makeUnique(); yield &storage.trailers }
    }

    /// The body in memory; empty when it was streamed to ``bodyFile``.
    public var body: Data {
        get { storage.body }
        _modify { makeUnique(); yield &storage.body }
    }

    /// Where the body was written, for downloads.
    public var bodyFile: URL? {
        get { storage.bodyFile }
        _modify { makeUnique(); yield &storage.bodyFile }
    }

    /// The request as it was finally sent, after every middleware changed it. The pipeline fills it
    /// in when the transport does not.
    public var request: HTTPRequest? {
        get { storage.request }
        _modify { makeUnique(); yield &storage.request }
    }

    /// The URL that produced this response: after redirects, the last hop's (``request``'s URL).
    public var url: URL? { storage.request?.url }

    /// Timings and sizes measured by the transport.
    public var metrics: TransferMetrics? {
        get { storage.metrics }
        _modify { makeUnique(); yield &storage.metrics }
    }

    /// Where it came from: the network, the cache, or a module that answered it (a HAR replay,
    /// the outbox).
    public var source: ResponseSource {
        get { storage.source }
        _modify { makeUnique(); yield &storage.source }
    }

    /// What modules attached to this response under keys of their own (hedging's count of
    /// hedges, for one): see ``AttachmentKey``.
    public var attachments: Attachments {
        get { storage.attachments }
        _modify { makeUnique(); yield &storage.attachments }
    }

    /// The body as it arrives, for a response to a streaming call (``Client/stream(_:context:timeout:deadline:)``);
    /// ``body`` is then empty. `nil` for every other response.
    public var bodyStream: ResponseBodyStream? {
        get { storage.bodyStream }
        _modify { makeUnique(); yield &storage.bodyStream }
    }

    /// Each middleware's own time, when tracing was on.
    public var trace: PipelineTrace? {
        get { storage.trace }
        _modify { makeUnique(); yield &storage.trace }
    }

    /// A response with `status`, `headers` and `body` in memory.
    public init(status: HTTPStatus, headers: HTTPFields = [:], body: Data = Data()) {
        storage = Storage(status: status, headers: headers, body: body)
    }

    /// The body decoded as UTF-8, or `nil` when it is not valid UTF-8.
    public var text: String? { String(data: body, encoding: .utf8) }

    /// `"200 OK (1024 bytes, network)"`.
    public var description: String { "\(status) (\(body.count) bytes, \(source))" }

    // One copy-on-write box: a response travels back up the chain as one reference.
    private var storage: Storage

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    /// Mutated only through `makeUnique()`, i.e. when this response holds the only reference, so no
    /// two values (and so no two tasks) ever see a write to the same box: that is what makes
    /// `@unchecked Sendable` safe here. Every field is itself `Sendable`. The fields skip run-time
    /// exclusivity checks: every access goes through this struct's accessors, and two overlapping
    /// accesses would need two overlapping accesses to the struct, which the compiler already
    /// refuses.
    private final class Storage: @unchecked Sendable {
        @exclusivity(unchecked) var status: HTTPStatus
        @exclusivity(unchecked) var headers: HTTPFields
        @exclusivity(unchecked) var body: Data
        @exclusivity(unchecked) var bodyFile: URL?
        @exclusivity(unchecked) var request: HTTPRequest?
        @exclusivity(unchecked) var metrics: TransferMetrics?
        @exclusivity(unchecked) var source: ResponseSource = .network
        @exclusivity(unchecked) var trace: PipelineTrace?
        @exclusivity(unchecked) var attachments = Attachments()
        @exclusivity(unchecked) var bodyStream: ResponseBodyStream?
        @exclusivity(unchecked) var trailers = HTTPFields()

        init(status: HTTPStatus, headers: HTTPFields, body: Data) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        func copy() -> Storage {
            let copy = Storage(status: status, headers: headers, body: body)
            copy.bodyFile = bodyFile
            copy.request = request
            copy.metrics = metrics
            copy.source = source
            copy.trace = trace
            copy.attachments = attachments
            copy.bodyStream = bodyStream
            copy.trailers = trailers
            return copy
        }
    }
}
