import Foundation

/// The body of a request: nothing, bytes in memory, a file on disk, or a stream.
///
/// A body says whether it can be sent again (``isReplayable``): retry refuses to resend one that
/// cannot. Memory and file bodies can; a stream can when it was made with
/// ``Stream/replayable(length:_:)``.
///
/// ```swift
/// import Foundation
/// import Sluice
///
/// request.body = .bytes(Data("{\"name\":\"Ada\"}".utf8))
/// request.body = .file(URL(fileURLWithPath: "/tmp/photo.jpg"))   // streamed by the transport
/// request.body = .stream(.oneShot(length: nil, chunks))          // sent once, never replayed
/// ```
public enum HTTPBody: Sendable {
    /// No body.
    case empty
    /// Bytes in memory.
    case bytes(Data)
    /// The contents of a file, read while sending, never loaded whole by the transport.
    case file(URL)
    /// Chunks produced while sending.
    case stream(Stream)

    /// A body produced as a sequence of `Data` chunks.
    public struct Stream: Sendable {
        /// The total length, when the producer knows it; sent as `Content-Length`. With `nil`, HTTP/1.1
        /// uses chunked transfer encoding. A negative length given is `nil`: unknown.
        public let length: Int64?
        /// Whether ``makeChunks()`` can be called more than once.
        public let isReplayable: Bool
        private let make: @Sendable () -> AsyncThrowingStream<Data, any Error>
        private let once: Once?
        /// The trailer fields sent after the last chunk, asked for once the chunks have ended
        /// (``withTrailers(_:)``); `nil` for none.
        package let trailers: (@Sendable () async throws -> HTTPFields)?

        private init(
            length: Int64?, isReplayable: Bool, make: @escaping @Sendable () -> AsyncThrowingStream<Data, any Error>, once: Once?,
            trailers: (@Sendable () async throws -> HTTPFields)? = nil
        ) {
            self.length = length
            self.isReplayable = isReplayable
            self.make = make
            self.once = once
            self.trailers = trailers
        }

        /// This stream with trailer fields after its last chunk: `trailers` is called once the
        /// chunks have ended (so a checksum or a signature of what was sent can go in it), for
        /// each send. A body with trailers is sent chunked over HTTP/1.1 (its length is not sent),
        /// as trailers need. Fields that frame or route the message (`Content-Length`,
        /// `Transfer-Encoding`, `Host`, `Trailer`, `Content-Encoding`, `Content-Type`,
        /// `Authorization`, …) are refused with `.invalidBody`, as RFC 9110 §6.5.1 says.
        ///
        /// ```swift
        /// import Foundation
        /// import Sluice
        ///
        /// // checksum: the hex digest of what was sent, worked out as the chunks went
        /// request.body = .stream(.oneShot(length: nil, chunks).withTrailers { ["X-Checksum": checksum] })
        /// ```
        public func withTrailers(_ trailers: @escaping @Sendable () async throws -> HTTPFields) -> Stream {
            Stream(length: nil, isReplayable: isReplayable, make: make, once: once, trailers: trailers)
        }

        /// This stream, declared to be `length` bytes long: a caller's `Content-Length` on a stream
        /// of unknown length (``HTTPRequest/withFramingFromBody()``). The transport holds the stream
        /// to it.
        package func declaring(length: Int64) -> Stream {
            Stream(length: max(0, length), isReplayable: isReplayable, make: make, once: once, trailers: trailers)
        }

        /// The fields a request body's trailers may not carry: framing, routing, authentication,
        /// and what says how to read the body (RFC 9110 §6.5.1).
        package static let fieldsNotAllowedInTrailers: Set<String> = [
            "content-length", "transfer-encoding", "host", "trailer", "te", "content-encoding", "content-type", "content-range",
            "authorization", "proxy-authorization", "cookie", "expect", "connection", "keep-alive", "upgrade", "cache-control", "max-forwards",
        ]

        /// A stream that can be read once. A second read throws `.invalidBody`, so a retry can never
        /// send a half-consumed or empty body by mistake.
        public static func oneShot(length: Int64?, _ chunks: AsyncThrowingStream<Data, any Error>) -> Stream {
            Stream(length: length.flatMap { $0 < 0 ? nil : $0 }, isReplayable: false, make: { chunks }, once: Once())
        }

        /// A stream that is made afresh by `make` for each send, so it can be retried.
        public static func replayable(
            length: Int64?, _ make: @escaping @Sendable () -> AsyncThrowingStream<Data, any Error>
        ) -> Stream {
            Stream(length: length.flatMap { $0 < 0 ? nil : $0 }, isReplayable: true, make: make, once: nil)
        }

        /// The chunks to send.
        ///
        /// - Throws: `.invalidBody` when a one-shot stream has been read already.
        public func makeChunks() throws(SluiceError) -> AsyncThrowingStream<Data, any Error> {
            if let once, !once.take() {
                throw SluiceError(
                    .invalidBody,
                    "the one-shot stream body was already read; make it with HTTPBody.Stream.replayable to send it again"
                )
            }
            return make()
        }
    }

    /// Whether the body can be sent again, e.g. by retry or after a redirect.
    public var isReplayable: Bool {
        switch self {
        case .empty, .bytes, .file: true
        case .stream(let stream): stream.isReplayable
        }
    }

    /// The length in bytes when it is known: a file's current size, a stream's declared length.
    /// `nil` for a file that cannot be read or a stream of unknown length.
    public var length: Int64? {
        switch self {
        case .empty: 0
        case .bytes(let data): Int64(data.count)
        case .file(let url):
            (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
        case .stream(let stream): stream.length
        }
    }

    /// Reads the whole body into memory. For middleware that must see every byte (signing a
    /// payload hash, gzip) and for tests.
    ///
    /// - Parameter limit: the most bytes to accept.
    /// - Throws: `.bodyTooLarge` past `limit`; `.invalidBody` when a file cannot be read or a stream
    ///   fails or was already read. `CancellationError` passes through.
    public func collect(limit: Int = .max) async throws -> Data {
        switch self {
        case .empty:
            return Data()
        case .bytes(let data):
            guard data.count <= limit else { throw Self.tooLarge(limit) }
            return data
        case .file(let url):
            let data: Data
            do {
                data = try Data(contentsOf: url, options: .mappedIfSafe)
            } catch {
                throw SluiceError(.invalidBody, "cannot read the body file \(url.path): \(error.localizedDescription)", underlying: error)
            }
            guard data.count <= limit else { throw Self.tooLarge(limit) }
            return data
        case .stream(let stream):
            var data = Data()
            do {
                for try await chunk in try stream.makeChunks() {
                    guard data.count + chunk.count <= limit else { throw Self.tooLarge(limit) }
                    data.append(chunk)
                }
            } catch let error as SluiceError {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                throw SluiceError(.invalidBody, "the body stream failed after \(data.count) bytes: \(error)", underlying: error)
            }
            return data
        }
    }

    private static func tooLarge(_ limit: Int) -> SluiceError {
        SluiceError(.bodyTooLarge, "the body is larger than the limit of \(limit) bytes")
    }
}
