import CCurl
import CCurlShim
import Foundation
import Sluice
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One request in flight on a ``CurlEventLoop``: the easy handle's options, the request body
/// source, the response being received, and the continuation to resume.
///
/// Made on the caller's thread, then handed to the loop with `submit(.start)`. From then on every
/// mutable property is used on the loop thread only (curl calls the callbacks there too). The
/// exceptions are `cancelRequested`, an atomic, and the stream-body pump, which only posts
/// closures to the loop. That is why `@unchecked Sendable` is safe here. For the same reason the
/// mutable state skips the run-time exclusivity checks (`@exclusivity(unchecked)`): it is used by
/// one thread, never re-entrantly, and the checks cost several thousand instructions a request.
final class CurlTransfer: @unchecked Sendable {
    let request: HTTPRequest
    let context: RequestContext
    /// The event loop the transfer runs on.
    let loop: CurlEventLoop
    /// What the transport's configuration says for every transfer, read once per transport.
    let settings: Settings
    var requestTimeout: Duration? { settings.requestTimeout }
    /// Whether curl's debug callback records the request's head (``requestHead``).
    var recordsRequestHead: Bool { settings.recordsRequestHead }
    /// The transport's digest credentials, if it has any.
    var digestCredentials: CurlTransport.DigestCredentials? { settings.digestCredentials }
    /// Fields curl would add that this request leaves out (`Configuration.omittedDefaultFields`).
    var omittedDefaultFields: [String] { settings.omittedDefaultFields }
    /// Whether a URL's query may go to curl as a request target (``configureURL(_:)``): not
    /// through a proxy (its target is the whole URL) nor with digest credentials (their `uri`
    /// is taken from the URL).
    var sendsQueryAsTarget: Bool { settings.sendsQueryAsTarget }
    /// The head of the request as curl wrote it: the last one, when curl sent the request more
    /// than once (an authentication round, a connection that had closed).
    @exclusivity(unchecked) var requestHead: [UInt8] = []
    @exclusivity(unchecked) var continuation: UnsafeContinuation<HTTPResponse, any Error>?
    @exclusivity(unchecked) var handle: UnsafeMutableRawPointer?

    let cancelRequested = Atomic<Bool>(false)

    // Response.
    @exclusivity(unchecked) var statusLineReason = ""
    /// The status code of the section being read, from its status line (0 when unparsable).
    @exclusivity(unchecked) var statusLineCode = 0
    @exclusivity(unchecked) var headers = HTTPFields()
    /// The raw lines of the header section being received (then of any trailers).
    @exclusivity(unchecked) var headerSection: [UInt8] = []
    /// Whether a status line has come and the empty line that ends its section not yet.
    @exclusivity(unchecked) var sectionOpen = false
    /// Whether the empty line after the header section has come.
    @exclusivity(unchecked) var headersComplete = false
    /// What the lines of the section being received hold, seen as each line comes, so that
    /// finishing it looks up no field most answers lack (see `SectionLines`).
    @exclusivity(unchecked) var sectionLines = SectionLines()
    @exclusivity(unchecked) var body = Data()
    @exclusivity(unchecked) var maxBodySize: Int
    @exclusivity(unchecked) var failure: SluiceError?
    @exclusivity(unchecked) var outputFile: UnsafeMutablePointer<FILE>?
    /// The trailer fields, once the trailer section is complete.
    @exclusivity(unchecked) var trailers = HTTPFields()

    // What a server may send beyond the body, each with its limit (`Configuration`).
    var limits: Limits { settings.limits }
    /// Bytes of header lines in every section so far, trailers not included.
    @exclusivity(unchecked) var headerBytes = 0
    /// Set when the transfer failed because its HTTP/2 session ended under it before any byte of
    /// an answer came (a stream a GOAWAY refused): the peer never processed it. Read by the
    /// caller after the transfer finished.
    @exclusivity(unchecked) var unprocessedByPeer = false
    /// Bytes and fields of the trailer section so far.
    @exclusivity(unchecked) var trailerBytes = 0
    @exclusivity(unchecked) var trailerCount = 0
    /// Body bytes curl has handed over, after any coding it undid.
    @exclusivity(unchecked) var bodyBytes: Int64 = 0
    /// Whether curl undoes a coding to write this body (so its size is not the wire's).
    @exclusivity(unchecked) var bodyIsDecoded = false
    /// Whether the connection speaks HTTP/1.x (its bytes are this transfer's alone).
    @exclusivity(unchecked) var isHTTP1 = false
    /// For a chunked HTTP/1.1 body: the connection's byte count when its head was complete, and
    /// the trailer bytes after it, so the framing's share of what was read can be told.
    @exclusivity(unchecked) var framingBaseline: UInt64?
    /// The connection's socket, once its status line said HTTP/1.x (-1 before, or untracked).
    @exclusivity(unchecked) var socket: Int32 = -1
    @exclusivity(unchecked) var bytesAfterBaseline = 0

    // A streamed response: handed to the caller with its head, the body then fed to the stream.
    let streamsBody: Bool
    @exclusivity(unchecked) var bodyWriter: ResponseBodyStream.Writer?
    /// Whether curl is paused because the stream's reader is behind.
    @exclusivity(unchecked) var receivePaused = false
    /// Whether the stream has been ended (the transfer is over for its reader).
    @exclusivity(unchecked) var streamEndedForReader = false
    /// Kept alive by the body's stream (the transport).
    @exclusivity(unchecked) var streamOwner: (any Sendable)?

    // Full duplex: a streamed response whose request body is a stream too (see
    // `CurlTransfer+Duplex.swift`), ended for its reader when its framing says so.
    @exclusivity(unchecked) var watchesDuplexEnd = false
    /// The final response's body length, when its head declared one (HTTP/1.x).
    @exclusivity(unchecked) var duplexLength: Int64?
    /// The final response's chunked framing as it came off the connection (HTTP/1.x).
    @exclusivity(unchecked) var duplexChunks: ChunkedFramingScanner?
    /// Whether a check of the response's end is queued on the loop.
    @exclusivity(unchecked) var duplexCheckQueued = false

    // Request body.
    enum BodySource {
        case none
        case data(Data, offset: Int)
        case file(UnsafeMutablePointer<FILE>, path: String)
        case stream
    }

    @exclusivity(unchecked) var bodySource = BodySource.none
    /// The length a file or stream body was sent as (its `Content-Length`), or -1 when it is sent
    /// chunked; the read callback holds the body to it (THREATS §17).
    @exclusivity(unchecked) var bodyDeclaredLength: Int64 = -1
    /// Bytes of a file or stream body handed to curl so far.
    @exclusivity(unchecked) var bodyBytesRead: Int64 = 0
    /// Bytes a stream body's pump has handed over so far.
    @exclusivity(unchecked) var streamBytesFed: Int64 = 0
    @exclusivity(unchecked) var headerList: UnsafeMutablePointer<curl_slist>?
    /// This request's own connect-to list (`HTTPRequest.connectTo`), freed with the transfer.
    @exclusivity(unchecked) var connectToList: UnsafeMutablePointer<curl_slist>?

    // Stream bodies: the chunk being sent, whether curl is paused waiting for one, and the pump.
    @exclusivity(unchecked) var streamChunk = Data()
    @exclusivity(unchecked) var streamOffset = 0
    @exclusivity(unchecked) var streamChunkSent: CheckedContinuation<Void, Never>?
    @exclusivity(unchecked) var streamEnded = false
    /// The trailer fields of a stream body, handed over with its end (``startPump(_:trailers:)``).
    @exclusivity(unchecked) var requestTrailers: HTTPFields?
    /// Whether this request turned curl's trailer callback on (and HTTP/1.1): its handle is not
    /// reused.
    @exclusivity(unchecked) var sendsTrailers = false
    /// The transport's HTTP version, which a request with trailers sets aside for HTTP/1.1.
    var httpVersion: CurlTransport.Configuration.HTTPVersion { settings.httpVersion }
    @exclusivity(unchecked) var streamPaused = false
    @exclusivity(unchecked) var pump: Task<Void, Never>?

    // Progress: the last figures reported, to report only changes.
    @exclusivity(unchecked) var lastProgress = (upload: Int64(-1), download: Int64(-1))

    init(request: HTTPRequest, context: RequestContext, settings: Settings, loop: CurlEventLoop) {
        self.request = request
        self.context = context
        self.loop = loop
        self.settings = settings
        self.maxBodySize = request.maxResponseBodySize ?? settings.maxResponseBodySize
        self.streamsBody = request.streamsResponseBody && request.responseBodyFile == nil && request.method != .head
    }

    /// What every transfer of one transport takes from its configuration, read once when the
    /// transport is made: a transfer copies these few values instead of the whole configuration
    /// (its strings, lists and credentials retained and released again on every request).
    final class Settings: Sendable {
        let requestTimeout: Duration?
        let httpVersion: CurlTransport.Configuration.HTTPVersion
        let recordsRequestHead: Bool
        let digestCredentials: CurlTransport.DigestCredentials?
        let omittedDefaultFields: [String]
        let sendsQueryAsTarget: Bool
        let maxResponseBodySize: Int
        let limits: Limits

        init(_ configuration: CurlTransport.Configuration) {
            requestTimeout = configuration.requestTimeout
            httpVersion = configuration.httpVersion
            recordsRequestHead = configuration.recordsRequestHeads
            digestCredentials = configuration.digestCredentials
            omittedDefaultFields = configuration.omittedDefaultFields
            sendsQueryAsTarget = configuration.proxy == nil && configuration.digestCredentials == nil
            maxResponseBodySize = configuration.maxResponseBodySize
            limits = Limits(configuration)
        }
    }

    var isCancelRequested: Bool { cancelRequested.load(ordering: .acquiring) }
    func requestCancel() { cancelRequested.store(true, ordering: .releasing) }

    // MARK: Finishing (loop thread)

    func complete(_ result: CURLcode, errorBuffer: UnsafePointer<CChar>) {
        guard let handle else { return }
        if let outputFile {
            if fflush(outputFile) != 0, failure == nil, result == CURLE_OK {
                failure = SluiceError(
                    .writeFailed, "flushing the response body to \(request.responseBodyFile?.path ?? "?") failed: \(String(cString: strerror(errno)))")
            }
        }
        if result == CURLE_OK && failure == nil {
            // A section cut short of its empty line, or trailers.
            _ = headersComplete ? finishTrailers() : finishHeaders()
        }
        if result != CURLE_OK || failure != nil {
            // libcurl 7.88 ends the HTTP/2 session with "Error in the HTTP2 framing layer" for
            // the stream whose read found it over after a GOAWAY, when that stream was refused
            // (above the GOAWAY's last_stream_id): the peer never processed it (RFC 9113 §6.8),
            // so the transport may send it again on a new connection, whatever its method. curl
            // retries the other refused streams itself. Only when nothing of an answer came.
            unprocessedByPeer =
                result == CURLE_HTTP2 && failure == nil && headerBytes == 0 && statusLineCode == 0 && !isCancelRequested
                && bodyWriter == nil
            fail(with: error(for: result, errorBuffer: errorBuffer))
            return
        }
        var info = sluice_transfer_info()
        sluice_easy_transfer_info(handle, &info)
        var response = HTTPResponse(
            status: HTTPStatus(code: info.response_code, reasonPhrase: statusLineReason.isEmpty ? nil : statusLineReason),
            headers: headers, body: body
        )
        response.trailers = trailers
        response.bodyFile = request.responseBodyFile
        response.request = request
        response.metrics = Self.metrics(info)
        if recordsRequestHead, !requestHead.isEmpty { response.metrics?.requestHead = String(decoding: requestHead, as: UTF8.self) }
        finish(.success(response))
    }

    func error(for result: CURLcode, errorBuffer: UnsafePointer<CChar>) -> SluiceError {
        if let failure { return failure }
        let detail = String(cString: errorBuffer)
        let curl = CurlError(result, detail: detail)
        if result.rawValue == CURLE_OUT_OF_MEMORY.rawValue && !headersComplete {
            // libcurl refuses a response header section past its 100 KB buffer this way; the
            // machine is not out of memory, the server sent a head too large to accept.
            return SluiceError(
                .invalidResponse, "\(request): the response's header section is larger than libcurl's 100 KB limit",
                underlying: curl)
        }
        if result.rawValue == CURLE_BAD_CONTENT_ENCODING.rawValue, let codings = headers["Transfer-Encoding"],
            let unknown = codings.split(separator: ",").map({ $0.trimmingOptionalWhitespace().lowercased() })
                .first(where: { !["chunked", "gzip", "x-gzip", "deflate", "br", "zstd", "identity"].contains($0) })
        {
            // libcurl 7.88 cannot undo a transfer coding it does not know, so the body cannot be
            // read: say which coding, not curl's "content encoding" wording.
            return SluiceError(
                .invalidResponse,
                "\(request): the response's Transfer-Encoding \(String(reflecting: unknown.escapingControlCharacters())) is not one libcurl can decode "
                    + "(chunked, gzip, deflate, br, zstd), so its body cannot be read",
                underlying: curl)
        }
        if result.rawValue == CURLE_SEND_FAIL_REWIND.rawValue {
            // Only a one-shot stream cannot be rewound: memory and file bodies seek back.
            return SluiceError(
                .connectionLost,
                "\(request): the connection closed before an answer, and the body is a one-shot stream that cannot be sent again; "
                    + "make it with HTTPBody.Stream.replayable",
                underlying: curl)
        }
        let what = detail.isEmpty ? curl.summary : detail
        if result.rawValue == CURLE_COULDNT_RESOLVE_HOST.rawValue, let server = loop.routing.dnsOverHTTPSOrigin {
            // curl says only that the name did not resolve: say who was asked.
            return SluiceError(.dnsFailure, "\(request): \(what) through the DNS-over-HTTPS server \(server)", underlying: curl)
        }
        return SluiceError(curl.sluiceCode, "\(request): \(what)", underlying: curl)
    }

    /// Resumes the caller with `error`, once; later calls do nothing.
    func fail(with error: any Error) {
        finish(.failure(error))
    }

    /// Resumes the caller, once, and tells the loop the transfer is over. When the head was
    /// already handed over (a streamed body), ends the stream instead.
    func finish(_ result: Result<HTTPResponse, any Error>) {
        if let bodyWriter, continuation == nil {
            guard !streamEndedForReader else { return }
            streamEndedForReader = true
            loop.load.subtract(1, ordering: .relaxed)
            switch result {
            case .success: bodyWriter.finish()
            case .failure(let error): bodyWriter.finish(throwing: error)
            }
            return
        }
        guard let continuation else { return }
        self.continuation = nil
        loop.load.subtract(1, ordering: .relaxed)
        ThreadSanitizer.release(self)  // what this thread made happens before the caller reads it
        continuation.resume(with: result)
    }

    /// Hands the caller the response's head and a stream for its body (loop thread, when the final
    /// header section is complete).
    func deliverHead() {
        guard let continuation, bodyWriter == nil else { return }
        let (stream, writer) = ResponseBodyStream.makeStream(owner: streamOwner)
        streamOwner = nil
        bodyWriter = writer
        writer.onDemand { [self] in loop.submit(.perform { self.resumeReceiving() }) }
        writer.onAbandon { [self] in
            requestCancel()
            loop.submit(.cancel(self))
        }
        var response = HTTPResponse(status: HTTPStatus(code: statusLineCode, reasonPhrase: statusLineReason.isEmpty ? nil : statusLineReason), headers: headers)
        response.request = request
        response.bodyStream = stream
        self.continuation = nil
        ThreadSanitizer.release(self)
        continuation.resume(returning: response)
    }

    /// Lets curl read again once the stream's reader has caught up (loop thread).
    func resumeReceiving() {
        guard receivePaused else { return }
        receivePaused = false
        loop.unpause(self)
    }

    /// Frees what the transfer holds (header list, files, the stream pump); whether its handle
    /// may serve another transfer.
    @discardableResult
    func releaseResources() -> Bool {
        // One block (see `configureHeaders`), not curl's own nodes.
        if let headerList { free(headerList) }
        headerList = nil
        curl_slist_free_all(connectToList)
        connectToList = nil
        if case .file(let file, _) = bodySource { fclose(file) }
        bodySource = .none
        if let outputFile { fclose(outputFile) }
        outputFile = nil
        pump?.cancel()
        pump = nil
        streamChunkSent?.resume()
        streamChunkSent = nil
        streamOwner = nil
        requestTrailers = nil
        // The debug callback watched the response's framing: off again for the handle's next use.
        if watchesDuplexEnd, !recordsRequestHead, let handle { sluice_easy_setopt_debug(handle, nil) }
        duplexChunks = nil
        handle = nil
        // libcurl 7.88 corrupts the heap on a handle's next upload once it has sent trailers
        // (a crash in free() on the loop's thread, seen in CurlTransportTrailerTests): a handle
        // that sent trailers is not reused. Its connection stays in the shared cache.
        return !sendsTrailers
    }
}

extension CurlTransfer {
    /// The limits on what a server sends beyond the body, from the transport's configuration.
    struct Limits: Sendable {
        let headerSection: Int
        let trailerSection: Int
        let trailerCount: Int
        let chunkExtensions: Int
        let decodedFile: Int64
        let decodingRatio: Int64
        let decodesContentEncoding: Bool

        init(_ configuration: CurlTransport.Configuration) {
            decodesContentEncoding = configuration.decodesContentEncoding
            headerSection = max(0, configuration.maxHeaderSectionSize)
            trailerSection = max(0, configuration.maxTrailerSectionSize)
            trailerCount = max(0, configuration.maxTrailerCount)
            chunkExtensions = max(0, configuration.maxChunkExtensionSize)
            decodedFile = max(0, configuration.maxDecodedFileSize)
            decodingRatio = Int64(max(1, configuration.maxDecodingRatio))
        }
    }
}
