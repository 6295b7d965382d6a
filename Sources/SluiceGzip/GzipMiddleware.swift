import Foundation
import Sluice

/// gzip both ways: asks for and decodes compressed responses (gzip, deflate, brotli and
/// Zstandard), and compresses request bodies with gzip when asked to.
///
/// - **Requests** are sent as written unless compression is asked for, because most servers do
///   not accept a compressed body: per request (`HTTPRequest.compressesBody` `= true`),
///   for some hosts (``Configuration/RequestCompression/hosts(_:)``) or for all
///   (``Configuration/RequestCompression/always``). Then an in-memory body (`.bytes`) without a
///   `Content-Encoding` is gzip-compressed and sent with `Content-Encoding: gzip`: every such body
///   a request asks for, and for hosts or always, those of at least
///   ``Configuration/compressionThreshold`` bytes. `compressesBody = .never` opts a request out.
///   Asking for it on a file or stream body is `.misconfigured` (they are never loaded whole).
/// - **Responses:** sends `Accept-Encoding: gzip, deflate, br, zstd` (``Configuration/acceptedCodings``;
///   unless the request sets its own) and decodes `gzip`, `x-gzip`, `deflate`, `br` and `zstd`
///   bodies, and a list of them (`gzip, zstd`) last coding first, at most 5; then removes
///   `Content-Encoding` and sets `Content-Length` to the decoded size. A list with a coding it does
///   not know is passed on as it came, named in `Content-Encoding`; a list of more than 5 is
///   `.invalidResponse`. Bodies written to a file, and messages without a body (HEAD, 204, 304),
///   are left as they came.
/// - **Ranges:** a request with a `Range` field is sent `Accept-Encoding: identity`, so the piece
///   that comes back is a piece of the plain body (what a resumed download and the cache join); a
///   `206` that comes encoded all the same is passed on as it came, `Content-Encoding` and all: a
///   piece of a compressed stream cannot be decoded alone.
/// - **Limits:** ``Configuration/limits`` bounds the expansion ratio and the decoded size: 64 MiB
///   for a body read whole, 1 GiB for one read as a stream (`client.stream`), which exists for
///   bodies larger than memory; past either, `.bodyTooLarge` ("decompression limit: …", naming
///   the setting). Corrupt, truncated or badly checksummed bodies fail with `.invalidResponse`.
///
/// ```swift
/// import Sluice
/// import SluiceGzip
///
/// builder.add(GzipMiddleware())                                        // position .gzip
/// builder.add(GzipMiddleware(configuration: .init(requestCompression: .hosts(["upload.example.com"]))))
///
/// var request = HTTPRequest(method: .post, url: url, body: .bytes(bigJSON))
/// request.compressesBody = .always                                         // this one, whatever its size
/// ```
public struct GzipMiddleware: Middleware {
    /// What is compressed and what is accepted.
    public struct Configuration: Sendable {
        /// Which requests have their bodies compressed, besides those that ask.
        public enum RequestCompression: Sendable, Hashable {
            /// Only requests with `HTTPRequest.compressesBody` `= true`.
            case whenAsked
            /// Also requests to these hosts (compared without case, with the host as the transport
            /// sends it: curl sends `127.1` to `127.0.0.1`).
            case hosts(Set<String>)
            /// Every request, unless it says `compressesBody = .never`.
            case always
        }

        /// Which requests are compressed; `.whenAsked` by default.
        public var requestCompression: RequestCompression
        /// For `.hosts` and `.always`, bodies shorter than this are sent as they are.
        public var compressionThreshold: Int
        /// zlib's level, 0–9 (held to that range).
        public var compressionLevel: Int32
        /// Ask for and decode compressed responses.
        public var decodesResponses: Bool
        /// The codings offered in `Accept-Encoding`, in this order: all four by default. Leave one
        /// out for a server that mishandles it; a body that comes in any of the four is decoded
        /// all the same.
        public var acceptedCodings: [GzipCodec.Format]
        /// Bounds on decoding.
        public var limits: GzipCodec.Limits

        /// Settings with each value given, or its default.
        public init(
            requestCompression: RequestCompression = .whenAsked, compressionThreshold: Int = 1_024, compressionLevel: Int32 = 6,
            decodesResponses: Bool = true, acceptedCodings: [GzipCodec.Format] = GzipCodec.Format.allCases, limits: GzipCodec.Limits = .default
        ) {
            self.requestCompression = requestCompression
            self.compressionThreshold = compressionThreshold
            self.compressionLevel = compressionLevel
            self.decodesResponses = decodesResponses
            self.acceptedCodings = acceptedCodings
            self.limits = limits
        }

        /// Compress request bodies only when a request asks (at level 6); offer and decode gzip,
        /// deflate, br and zstd, up to 64 MiB and 1,000×.
        public static let `default` = Configuration()
    }

    public static let defaultPosition = MiddlewarePosition.gzip
    public static let readsOptions: [any RequestOptionKey.Type] = [CompressesBodyKey.self]

    /// How it behaves.
    public let configuration: Configuration

    /// The field every request without a `Range` gets, and the one with a `Range` gets.
    private let acceptEncoding: Result<HTTPFields.Field, SluiceError>
    private static let identity = Result { () throws(SluiceError) in try HTTPFields.Field(checking: "Accept-Encoding", value: "identity") }

    /// One with `configuration`.
    public init(configuration: Configuration = .default) {
        self.configuration = configuration
        var offered: [String] = []
        for coding in configuration.acceptedCodings where !offered.contains(coding.rawValue) { offered.append(coding.rawValue) }
        let value = offered.isEmpty ? "identity" : offered.joined(separator: ", ")
        acceptEncoding = Result { () throws(SluiceError) in try HTTPFields.Field(checking: "Accept-Encoding", value: value) }
    }

    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        var request = request
        if try compresses(request, sentTo: { next.urlAsSent(request.url) }), case .bytes(let body) = request.body, !request.headers.contains("Content-Encoding")
        {
            request.body = .bytes(try GzipCodec.compress(body, level: configuration.compressionLevel))
            try request.headers.set(name: "Content-Encoding", value: "gzip")
        }
        if configuration.decodesResponses, !request.headers.contains("Accept-Encoding") {
            request.headers.set(try (request.headers.contains("Range") ? Self.identity : acceptEncoding).get())
        }
        var response = try await next(request, context)
        // A message with no body (HEAD, 204, 304) is never decoded, and a 206's piece cannot be.
        guard configuration.decodesResponses, response.bodyFile == nil, request.method != .head,
            ![204, 206, 304].contains(response.status.code), let encoding = response.headers["Content-Encoding"]
        else { return response }
        let formats: [GzipCodec.Format]
        do {
            guard let known = try Self.formats(encoding, of: request) else { return response }
            formats = known
        } catch {
            throw SluiceError(error.code, error.message, response: response)
        }
        if let stream = response.bodyStream {
            // A streamed body is decoded as it is read, the last coding first, each layer a piece
            // at a time and the whole held to the ratio against the bytes on the wire.
            let chain = Locked(GzipDecodingChain(formats: formats, limits: configuration.limits, whole: false))
            // Its errors (a chunk or the end) name the request, as a buffered body's do.
            let what = "\(request)"
            response.bodyStream = ResponseBodyStream(pull: {
                while true {
                    if let piece = try chain.withLock({ chain throws(SluiceError) in try chain.next() }) { return piece }
                    if chain.withLock({ $0.isFinished }) { return nil }
                    guard let chunk = try await stream.next() else {
                        try chain.withLock { chain throws(SluiceError) in try chain.finish() }
                        return nil
                    }
                    chain.withLock { $0.feed(chunk) }
                }
            }).renamingErrors { error in SluiceError(error.code, "\(what): \(error.message)", underlying: error.underlying) }
            response.headers.remove(name: "Content-Encoding")
            response.headers.remove(name: "Content-Length")
            return response
        }
        do {
            let chain = GzipDecodingChain(formats: formats, limits: configuration.limits, whole: true)
            chain.feed(response.body)
            var decoded = Data()
            while let piece = try chain.next() { decoded.append(piece) }
            try chain.finish()
            response.body = decoded
        } catch {
            throw SluiceError(error.code, "\(request): \(error.message)", response: response)
        }
        response.headers.remove(name: "Content-Encoding")
        try response.headers.set(name: "Content-Length", value: String(response.body.count))
        return response
    }

    /// The most codings one body may list: what libcurl undoes, too.
    static let maxCodings = 5

    /// The codings `encoding` lists, in the order they were applied (`identity` left out); `nil`
    /// when one is not this middleware's to undo (it is passed on as it came, named in
    /// `Content-Encoding`). RFC 9110 §8.4: undone in reverse order, all or none.
    ///
    /// - Throws: `.invalidResponse` past ``maxCodings``, before any is undone.
    static func formats(_ encoding: String, of request: HTTPRequest) throws(SluiceError) -> [GzipCodec.Format]? {
        var formats: [GzipCodec.Format] = []
        for token in encoding.split(separator: ",") {
            switch token.trimmingOptionalWhitespace().lowercased() {
            case "gzip", "x-gzip": formats.append(.gzip)
            case "deflate": formats.append(.deflate)
            case "br": formats.append(.brotli)
            case "zstd": formats.append(.zstd)
            case "identity", "": continue
            default: return nil
            }
        }
        guard formats.count <= maxCodings else {
            throw SluiceError(
                .invalidResponse, "\(request): the response lists \(formats.count) content codings; at most \(maxCodings) are undone")
        }
        return formats.isEmpty ? nil : formats
    }

    /// Whether `request`'s body is to be compressed: its own say first, then the configuration.
    ///
    /// - Throws: `.misconfigured` when a request asks for it on a file or stream body.
    func compresses(_ request: HTTPRequest, sentTo sentURL: () -> URL) throws(SluiceError) -> Bool {
        switch request.compressesBody {
        case .never: return false
        case .always:
            switch request.body {
            case .file, .stream:
                throw SluiceError(
                    .misconfigured,
                    "request.compressesBody is set on \(request), whose body is a file or a stream: GzipMiddleware compresses "
                        + "in-memory bodies only (a file or stream is never loaded whole)"
                )
            default: return true
            }
        case .asConfigured: break
        }
        guard case .bytes(let body) = request.body, body.count >= configuration.compressionThreshold else { return false }
        switch configuration.requestCompression {
        case .whenAsked: return false
        case .always: return true
        case .hosts(let hosts):
            guard let host = sentURL().host?.lowercased() else { return false }
            return hosts.contains { $0.lowercased() == host }
        }
    }
}
