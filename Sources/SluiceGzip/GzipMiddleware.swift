import Foundation
import Sluice

/// gzip both ways: compresses request bodies, asks for and decodes compressed responses.
///
/// - **Requests:** an in-memory body (`.bytes`) of at least ``Configuration/compressionThreshold``
///   bytes, without a `Content-Encoding` already, is gzip-compressed and sent with
///   `Content-Encoding: gzip`. File and stream bodies are sent as they are.
/// - **Responses:** sends `Accept-Encoding: gzip, deflate` (unless the request sets its own) and
///   decodes `gzip`, `x-gzip` and `deflate` bodies, then removes `Content-Encoding` and sets
///   `Content-Length` to the decoded size. Bodies written to a file are left encoded.
/// - **Limits:** ``Configuration/limits`` bounds the decoded size and the expansion ratio; past
///   either, `.bodyTooLarge` ("decompression limit: …"). Corrupt, truncated or badly checksummed
///   bodies fail with `.invalidResponse`.
///
/// ```swift
/// builder.add(GzipMiddleware())                                        // position .gzip
/// builder.add(GzipMiddleware(configuration: .init(compressionThreshold: 16 << 10)))
/// ```
public struct GzipMiddleware: Middleware {
    /// What is compressed and what is accepted.
    public struct Configuration: Sendable {
        /// Request bodies at least this long are compressed; `Int.max` never compresses.
        public var compressionThreshold: Int
        /// zlib's level, 0–9.
        public var compressionLevel: Int32
        /// Ask for and decode compressed responses.
        public var decodesResponses: Bool
        /// Bounds on decoding.
        public var limits: GzipCodec.Limits

        public init(
            compressionThreshold: Int = 1_024, compressionLevel: Int32 = 6, decodesResponses: Bool = true,
            limits: GzipCodec.Limits = .default
        ) {
            self.compressionThreshold = compressionThreshold
            self.compressionLevel = compressionLevel
            self.decodesResponses = decodesResponses
            self.limits = limits
        }

        /// Compress bodies of 1 KiB or more at level 6; decode up to 64 MiB and 1,000×.
        public static let `default` = Configuration()
    }

    public static let defaultPosition = MiddlewarePosition.gzip

    public let configuration: Configuration

    public init(configuration: Configuration = .default) {
        self.configuration = configuration
    }

    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        var request = request
        if case .bytes(let body) = request.body, body.count >= configuration.compressionThreshold,
            !request.headers.contains("Content-Encoding")
        {
            request.body = .bytes(try GzipCodec.compress(body, level: configuration.compressionLevel))
            try request.headers.set(name: "Content-Encoding", value: "gzip")
        }
        if configuration.decodesResponses, !request.headers.contains("Accept-Encoding") {
            try request.headers.set(name: "Accept-Encoding", value: "gzip, deflate")
        }
        var response = try await next(request, context)
        guard configuration.decodesResponses, response.bodyFile == nil,
            let encoding = response.headers["Content-Encoding"]?.trimmingCharacters(in: .whitespaces).lowercased()
        else { return response }
        let format: GzipCodec.Format
        switch encoding {
        case "gzip", "x-gzip": format = .gzip
        case "deflate": format = .deflate
        default: return response  // identity, br, or a list: not ours to undo
        }
        do {
            response.body = try GzipCodec.decompress(response.body, format: format, limits: configuration.limits)
        } catch {
            throw SluiceError(error.code, "\(request): \(error.message)", response: response)
        }
        response.headers.remove(name: "Content-Encoding")
        try response.headers.set(name: "Content-Length", value: String(response.body.count))
        return response
    }
}
