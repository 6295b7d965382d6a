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
    private let redirects: RedirectPolicy
    private let requestTimeout: Duration?
    @exclusivity(unchecked) var continuation: UnsafeContinuation<HTTPResponse, any Error>?
    @exclusivity(unchecked) private(set) var handle: UnsafeMutableRawPointer?

    private let cancelRequested = Atomic<Bool>(false)

    // Response.
    @exclusivity(unchecked) private var statusLineReason = ""
    /// The status code of the section being read, from its status line (0 when unparsable).
    @exclusivity(unchecked) private var statusLineCode = 0
    @exclusivity(unchecked) private var headers = HTTPFields()
    /// The raw lines of the header section being received (then of any trailers).
    @exclusivity(unchecked) private var headerSection: [UInt8] = []
    /// Whether the empty line after the header section has come.
    @exclusivity(unchecked) private var headersComplete = false
    @exclusivity(unchecked) private var body = Data()
    @exclusivity(unchecked) private var maxBodySize: Int
    @exclusivity(unchecked) private var failure: SluiceError?
    @exclusivity(unchecked) private var outputFile: UnsafeMutablePointer<FILE>?

    // Request body.
    private enum BodySource {
        case none
        case data(Data, offset: Int)
        case file(UnsafeMutablePointer<FILE>, path: String)
        case stream
    }

    @exclusivity(unchecked) private var bodySource = BodySource.none
    @exclusivity(unchecked) private var headerList: UnsafeMutablePointer<curl_slist>?

    // Stream bodies: the chunk being sent, whether curl is paused waiting for one, and the pump.
    @exclusivity(unchecked) private var streamChunk = Data()
    @exclusivity(unchecked) private var streamOffset = 0
    @exclusivity(unchecked) private var streamChunkSent: CheckedContinuation<Void, Never>?
    @exclusivity(unchecked) private var streamEnded = false
    @exclusivity(unchecked) private var streamPaused = false
    @exclusivity(unchecked) private var pump: Task<Void, Never>?

    // Progress: the last figures reported, to report only changes.
    @exclusivity(unchecked) private var lastProgress = (upload: Int64(-1), download: Int64(-1))

    init(request: HTTPRequest, context: RequestContext, configuration: CurlTransport.Configuration, loop: CurlEventLoop) {
        self.request = request
        self.context = context
        self.loop = loop
        self.redirects = request.redirectPolicy ?? configuration.redirects
        self.requestTimeout = configuration.requestTimeout
        self.maxBodySize = request.maxResponseBodySize ?? configuration.maxResponseBodySize
    }

    var isCancelRequested: Bool { cancelRequested.load(ordering: .acquiring) }
    func requestCancel() { cancelRequested.store(true, ordering: .releasing) }

    // MARK: Setting up (loop thread)

    /// Sets the options every request of a transport shares, once, on a new easy handle. A
    /// recycled handle keeps them (no `curl_easy_reset`): ``configure(_:loop:)`` sets every option
    /// that varies between requests, each time.
    static func configureShared(_ handle: UnsafeMutableRawPointer, _ configuration: CurlTransport.Configuration) throws {
        sluice_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        try set(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        try set(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        sluice_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.wholeMilliseconds)
        if let (bytesPerSecond, duration) = configuration.lowSpeedLimit {
            sluice_easy_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, bytesPerSecond)
            sluice_easy_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, max(1, duration.wholeMilliseconds / 1000))
        }
        let version: Int = switch configuration.httpVersion {
        case .http1_1: CURL_HTTP_VERSION_1_1
        case .http2: CURL_HTTP_VERSION_2TLS
        case .http2PriorKnowledge: CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE
        }
        sluice_easy_setopt_long(handle, CURLOPT_HTTP_VERSION, version)
        if configuration.httpVersion == .http2PriorKnowledge && sluice_curl_version_num() < 0x08_00_00 {
            // libcurl before 8.0.0 breaks a reused h2c prior-knowledge connection ("Error in the
            // HTTP2 framing layer", curl issue #10634, fixed in 8.0.0): use a new one each time.
            sluice_easy_setopt_long(handle, CURLOPT_FORBID_REUSE, 1)
            sluice_easy_setopt_long(handle, CURLOPT_FRESH_CONNECT, 1)
        }
        try configureTLS(handle, configuration.tls)
        try set(handle, CURLOPT_PROXY, configuration.proxy ?? "")
        if let noProxy = configuration.noProxy { try set(handle, CURLOPT_NOPROXY, noProxy) }
        if configuration.decodesContentEncoding { try set(handle, CURLOPT_ACCEPT_ENCODING, "") }
        // Sent only when the request has no User-Agent field of its own (curl's rule).
        if let userAgent = configuration.userAgent { try set(handle, CURLOPT_USERAGENT, userAgent) }
        sluice_easy_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, headerCallback)
        sluice_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, writeCallback)
        sluice_easy_setopt_data_callback(handle, CURLOPT_READFUNCTION, readCallback)
        sluice_easy_setopt_xferinfo(handle, progressCallback)
    }

    /// Sets every option that varies between requests (on a handle that
    /// ``configureShared(_:_:)`` prepared, possibly used before).
    func configure(_ handle: UnsafeMutableRawPointer, loop: CurlEventLoop) throws {
        self.handle = handle
        let me = Unmanaged.passUnretained(self).toOpaque()
        try Self.set(handle, CURLOPT_URL, request.url.absoluteString)

        switch redirects {
        case .none:
            sluice_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        case .follow(let max):
            sluice_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 1)
            sluice_easy_setopt_long(handle, CURLOPT_MAXREDIRS, max)
        }

        var limit = requestTimeout
        if let remaining = context.remainingTime { limit = min(limit ?? remaining, remaining) }
        sluice_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, limit.map { max(1, $0.wholeMilliseconds) } ?? 0)

        try configureMethodAndBody(handle, loop: loop)
        try configureHeaders(handle)

        sluice_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, me)
        sluice_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, me)
        sluice_easy_setopt_pointer(handle, CURLOPT_READDATA, me)
        sluice_easy_setopt_pointer(handle, CURLOPT_XFERINFODATA, me)
        sluice_easy_setopt_long(handle, CURLOPT_NOPROGRESS, context.progress == nil ? 1 : 0)
        if let file = request.responseBodyFile {
            guard let output = fopen(file.path, "wb") else {
                throw SluiceError(.writeFailed, "cannot open \(file.path) to write the response body: \(String(cString: strerror(errno)))")
            }
            outputFile = output
        }
    }

    private static func configureTLS(_ handle: UnsafeMutableRawPointer, _ tls: CurlTransport.Configuration.TLS) throws {
        if !tls.verifyPeer {
            sluice_easy_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 0)
            sluice_easy_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 0)
        }
        if let caFile = tls.caFile { try set(handle, CURLOPT_CAINFO, caFile) }
        if let caDirectory = tls.caDirectory { try set(handle, CURLOPT_CAPATH, caDirectory) }
        if let certificate = tls.clientCertificate {
            try set(handle, CURLOPT_SSLCERT, certificate.path)
            try set(handle, CURLOPT_SSLCERTTYPE, certificate.format.rawValue)
            if let key = certificate.keyPath { try set(handle, CURLOPT_SSLKEY, key) }
            if let password = certificate.password { try set(handle, CURLOPT_KEYPASSWD, password) }
        }
        if let pin = tls.pinnedPublicKey { try set(handle, CURLOPT_PINNEDPUBLICKEY, pin) }
        let minimum = switch tls.minimumVersion {
        case .tls1_2: CURL_SSLVERSION_TLSv1_2
        case .tls1_3: CURL_SSLVERSION_TLSv1_3
        }
        sluice_easy_setopt_long(handle, CURLOPT_SSLVERSION, minimum)
    }

    private func configureMethodAndBody(_ handle: UnsafeMutableRawPointer, loop: CurlEventLoop) throws {
        let method = request.method
        if method == .head, !(request.body.length == 0) {
            // Checked before a file is opened or a one-shot stream is read.
            throw SluiceError(.invalidBody, "a HEAD request cannot carry a body")
        }
        let length: Int64?
        switch method == .head ? .empty : request.body {
        case .empty:
            bodySource = .none
            length = nil
        case .bytes(let data):
            bodySource = .data(data, offset: 0)
            length = Int64(data.count)
        case .file(let url):
            guard let file = fopen(url.path, "rb") else {
                throw SluiceError(.invalidBody, "cannot open the body file \(url.path): \(String(cString: strerror(errno)))")
            }
            bodySource = .file(file, path: url.path)
            length = request.body.length
        case .stream(let stream):
            let chunks = try stream.makeChunks()
            bodySource = .stream
            length = stream.length
            startPump(chunks, loop: loop)
        }

        // Every method option is set, so nothing of the handle's previous request survives.
        // (Setting POSTFIELDS makes the method POST, so HTTPGET comes after it.)
        sluice_easy_setopt_pointer(handle, CURLOPT_CUSTOMREQUEST, nil)
        sluice_easy_setopt_pointer(handle, CURLOPT_POSTFIELDS, nil)
        sluice_easy_setopt_long(handle, CURLOPT_HTTPGET, 1)          // clears POST, NOBODY, UPLOAD
        if case .none = bodySource {
            if method == .get {
                return
            } else if method == .head {
                sluice_easy_setopt_long(handle, CURLOPT_NOBODY, 1)
            } else if method == .post {
                sluice_easy_setopt_long(handle, CURLOPT_POST, 1)
                sluice_easy_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, 0)
                try Self.set(handle, CURLOPT_COPYPOSTFIELDS, "")
            } else {
                try Self.set(handle, CURLOPT_CUSTOMREQUEST, method.rawValue)
            }
            return
        }
        // POST with a read callback sends the body (chunked when its length is unknown); any
        // other method name goes on the request line.
        sluice_easy_setopt_long(handle, CURLOPT_POST, 1)
        sluice_easy_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(length ?? -1))
        if method != .post { try Self.set(handle, CURLOPT_CUSTOMREQUEST, method.rawValue) }
    }

    private func configureHeaders(_ handle: UnsafeMutableRawPointer) throws {
        if request.headers.isEmpty {
            sluice_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, Self.noExpectList.pointer)
            return
        }
        var list: UnsafeMutablePointer<curl_slist>?
        for field in request.headers {
            // "Name;" is curl's way to send a header with an empty value.
            let line = field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)"
            list = curl_slist_append(list, line)
        }
        // No "Expect: 100-continue" round trip unless the caller asks for it.
        if !request.headers.contains("Expect") { list = curl_slist_append(list, "Expect:") }
        // Without a body, curl must not invent a Content-Type.
        headerList = list
        sluice_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, list)
    }

    /// The header list of a request without headers: only "Expect:" (no 100-continue). curl
    /// never changes a list it is given, and this one is never freed, so all loops share it.
    private static let noExpectList = HeaderList(curl_slist_append(nil, "Expect:"))

    /// A curl header list that lives as long as the process.
    private struct HeaderList: @unchecked Sendable {
        // @unchecked: made once, never mutated or freed; curl only reads it.
        let pointer: UnsafeMutablePointer<curl_slist>?
        init(_ pointer: UnsafeMutablePointer<curl_slist>?) { self.pointer = pointer }
    }

    private static func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, _ value: String) throws {
        let code = sluice_easy_setopt_string(handle, option, value)
        if code != CURLE_OK {
            throw SluiceError(
                code == CURLE_UNKNOWN_OPTION || code == CURLE_NOT_BUILT_IN ? .other : .invalidURL,
                "curl refused option \(option.rawValue) = \(String(reflecting: value)): \(String(cString: curl_easy_strerror(code)))",
                underlying: CurlError(code, detail: "")
            )
        }
    }

    // MARK: Stream bodies

    private func startPump(_ chunks: AsyncThrowingStream<Data, any Error>, loop: CurlEventLoop) {
        pump = Task { [self] in
            do {
                for try await chunk in chunks where !chunk.isEmpty {
                    await withCheckedContinuation { (sent: CheckedContinuation<Void, Never>) in
                        loop.submit(.perform { self.feed(chunk, sent: sent, loop: loop) })
                    }
                }
                loop.submit(.perform { self.feedEnd(nil, loop: loop) })
            } catch {
                loop.submit(.perform { self.feedEnd(error, loop: loop) })
            }
        }
    }

    private func feed(_ chunk: Data, sent: CheckedContinuation<Void, Never>, loop: CurlEventLoop) {
        guard handle != nil else { return sent.resume() }
        streamChunk = chunk
        streamOffset = 0
        streamChunkSent = sent
        resumeIfPaused(loop)
    }

    private func feedEnd(_ error: (any Error)?, loop: CurlEventLoop) {
        streamEnded = true
        if let error, !(error is CancellationError), failure == nil {
            failure = SluiceError(.invalidBody, "the request body stream failed: \(error)", underlying: error)
        }
        resumeIfPaused(loop)
    }

    private func resumeIfPaused(_ loop: CurlEventLoop) {
        if streamPaused {
            streamPaused = false
            loop.unpause(self)
        }
    }

    // MARK: Callbacks (loop thread)

    fileprivate func readBody(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        switch bodySource {
        case .none:
            return 0
        case .data(let data, let offset):
            let count = min(capacity, data.count - offset)
            if count > 0 {
                data.withUnsafeBytes { bytes in
                    UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
                }
                bodySource = .data(data, offset: offset + count)
            }
            return count
        case .file(let file, let path):
            let count = fread(buffer, 1, capacity, file)
            if count == 0 && ferror(file) != 0 {
                failure = SluiceError(.invalidBody, "reading the body file \(path) failed: \(String(cString: strerror(errno)))")
                return sluice_readfunc_abort()
            }
            return count
        case .stream:
            if failure != nil { return sluice_readfunc_abort() }
            let available = streamChunk.count - streamOffset
            if available > 0 {
                let count = min(capacity, available)
                streamChunk.withUnsafeBytes { bytes in
                    UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + streamOffset, byteCount: count)
                }
                streamOffset += count
                if streamOffset == streamChunk.count {
                    streamChunk = Data()
                    streamOffset = 0
                    streamChunkSent?.resume()
                    streamChunkSent = nil
                }
                return count
            }
            if streamEnded { return 0 }
            streamPaused = true
            return sluice_readfunc_pause()
        }
    }

    fileprivate func receiveHeader(_ buffer: UnsafeMutablePointer<CChar>, count: Int) -> Int {
        let line = UnsafeRawBufferPointer(start: buffer, count: count)
        if count >= 5 && line[0] == 0x48 && line[1] == 0x54 && line[2] == 0x54 && line[3] == 0x50 && line[4] == 0x2F {  // "HTTP/"
            // A new response (the first, a redirect hop, or after an interim 1xx): a new section.
            headers = HTTPFields()
            headerSection = []
            headerSection.reserveCapacity(512)
            headersComplete = false
            statusLineReason = Self.reasonPhrase(line)
            statusLineCode = Self.statusCode(line)
            return count
        }
        if line[0] == 0x0D || line[0] == 0x0A {
            // The empty line: the header section is complete (trailers may follow it).
            return headersComplete || finishHeaders() ? count : 0
        }
        if !headersComplete && outputFile == nil, let length = Self.contentLength(line), length > 0 {
            // One allocation for the whole body instead of a copy at every doubling.
            body.reserveCapacity(min(length, maxBodySize))
        }
        // Header lines, or trailer lines after the section: kept raw, checked all at once.
        headerSection.append(contentsOf: line)
        return count
    }

    /// Parses the collected header lines into `headers`; false (with `failure` set) when a line
    /// is invalid.
    private func finishHeaders() -> Bool {
        do {
            headers = try HTTPFields(parsing: headerSection)
        } catch {
            failure = SluiceError(.invalidResponse, "\(request) got an invalid header: \(error.message)", underlying: error.underlying)
            return false
        }
        headerSection = []          // the fields now own the bytes
        headersComplete = true
        context.responseHead?(HTTPStatus(code: statusLineCode, reasonPhrase: statusLineReason.isEmpty ? nil : statusLineReason), headers)
        return true
    }

    /// The three digits after the protocol in a status line (`HTTP/1.1 206 Partial Content`).
    private static func statusCode(_ line: UnsafeRawBufferPointer) -> Int {
        guard let space = line.firstIndex(of: 0x20), space + 3 < line.count else { return 0 }
        var code = 0
        for byte in line[(space + 1)...(space + 3)] {
            guard byte >= 0x30 && byte <= 0x39 else { return 0 }
            code = code * 10 + Int(byte - 0x30)
        }
        return code
    }

    /// Adds trailer fields (lines after the header section, from a chunked body) to `headers`.
    private func finishTrailers() -> Bool {
        guard !headerSection.isEmpty else { return true }
        do {
            for field in try HTTPFields(parsing: headerSection) {
                try headers.append(name: field.name, value: field.value)
            }
        } catch {
            failure = SluiceError(.invalidResponse, "\(request) got an invalid trailer: \(error.message)", underlying: error.underlying)
            return false
        }
        headerSection = []
        return true
    }

    /// The reason phrase of a status line (`HTTP/1.1 200 OK`), or "" when there is none.
    private static func reasonPhrase(_ line: UnsafeRawBufferPointer) -> String {
        var end = line.count
        while end > 0 && (line[end - 1] == 0x0A || line[end - 1] == 0x0D) { end -= 1 }
        guard let firstSpace = line[..<end].firstIndex(of: 0x20),
              let secondSpace = line[(firstSpace + 1)..<end].firstIndex(of: 0x20) else { return "" }
        return String(decoding: line[(secondSpace + 1)..<end], as: UTF8.self)
    }

    /// The value of a `Content-Length: …` line, read from its bytes; nil for any other line.
    private static func contentLength(_ line: UnsafeRawBufferPointer) -> Int? {
        guard line.count > 15, line[14] == 0x3A, line[0] | 0x20 == 0x63, line[7] == 0x2D,   // ":", "c", "-"
              line[8] | 0x20 == 0x6C, line[13] | 0x20 == 0x68 else { return nil }           // "l", "h"
        for (offset, expected) in contentLengthName.enumerated() where line[offset] | 0x20 != expected { return nil }
        var length = 0, digits = 0
        for byte in line[15...] where byte != 0x20 && byte != 0x09 && byte != 0x0D && byte != 0x0A {
            guard byte >= 0x30 && byte <= 0x39, digits < 18 else { return nil }
            length = length * 10 + Int(byte - 0x30)
            digits += 1
        }
        return digits > 0 ? length : nil
    }

    /// Whether the response set cookies (for saving a file-backed jar).
    var receivedCookies: Bool { headers.contains("Set-Cookie") }

    fileprivate func receiveBody(_ buffer: UnsafeMutablePointer<CChar>, count: Int) -> Int {
        if let outputFile {
            let written = fwrite(buffer, 1, count, outputFile)
            if written < count {
                failure = SluiceError(
                    .writeFailed,
                    "writing the response body to \(request.responseBodyFile?.path ?? "?") failed: \(String(cString: strerror(errno)))"
                )
                return 0
            }
            return count
        }
        if body.count + count > maxBodySize {
            failure = SluiceError(
                .bodyTooLarge, "the response body of \(request) is larger than the limit of \(maxBodySize) bytes"
            )
            return 0
        }
        body.append(UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: count)
        return count
    }

    fileprivate func reportProgress(downloadTotal: Int64, downloaded: Int64, uploadTotal: Int64, uploaded: Int64) -> Int32 {
        guard let progress = context.progress else { return 0 }
        if uploaded != lastProgress.upload && (uploaded > 0 || uploadTotal > 0) {
            progress(TransferProgress(direction: .upload, completedBytes: uploaded, totalBytes: uploadTotal > 0 ? uploadTotal : nil))
        }
        if downloaded != lastProgress.download && (downloaded > 0 || downloadTotal > 0) {
            progress(TransferProgress(direction: .download, completedBytes: downloaded, totalBytes: downloadTotal > 0 ? downloadTotal : nil))
        }
        lastProgress = (uploaded, downloaded)
        return 0
    }

    // MARK: Finishing (loop thread)

    func complete(_ result: CURLcode, errorBuffer: UnsafePointer<CChar>) {
        guard let handle else { return }
        if let outputFile {
            if fflush(outputFile) != 0, failure == nil, result == CURLE_OK {
                failure = SluiceError(.writeFailed, "flushing the response body to \(request.responseBodyFile?.path ?? "?") failed: \(String(cString: strerror(errno)))")
            }
        }
        if result == CURLE_OK && failure == nil {
            // A section cut short of its empty line, or trailers.
            _ = headersComplete ? finishTrailers() : finishHeaders()
        }
        if result != CURLE_OK || failure != nil {
            fail(with: error(for: result, errorBuffer: errorBuffer))
            return
        }
        var info = sluice_transfer_info()
        sluice_easy_transfer_info(handle, &info)
        var response = HTTPResponse(
            status: HTTPStatus(code: info.response_code, reasonPhrase: statusLineReason.isEmpty ? nil : statusLineReason),
            headers: headers, body: body
        )
        response.bodyFile = request.responseBodyFile
        response.request = request
        response.metrics = Self.metrics(info)
        finish(.success(response))
    }

    private func error(for result: CURLcode, errorBuffer: UnsafePointer<CChar>) -> SluiceError {
        if let failure { return failure }
        let detail = String(cString: errorBuffer)
        let curl = CurlError(result, detail: detail)
        if result.rawValue == CURLE_OUT_OF_MEMORY.rawValue && !headersComplete {
            // libcurl refuses a response header section past its 100 KB buffer this way; the
            // machine is not out of memory, the server sent a head too large to accept.
            return SluiceError(.invalidResponse, "\(request): the response's header section is larger than libcurl's 100 KB limit",
                               underlying: curl)
        }
        let what = detail.isEmpty ? curl.summary : detail
        return SluiceError(curl.sluiceCode, "\(request): \(what)", underlying: curl)
    }

    private static func metrics(_ info: sluice_transfer_info) -> TransferMetrics {
        func time(_ micros: curl_off_t) -> Duration? { micros > 0 ? .microseconds(Int64(micros)) : nil }
        let version: String? = switch info.http_version {
        case CURL_HTTP_VERSION_1_0: "1.0"
        case CURL_HTTP_VERSION_1_1: "1.1"
        case CURL_HTTP_VERSION_2_0: "2"
        case CURL_HTTP_VERSION_3: "3"
        default: nil
        }
        return TransferMetrics(
            nameLookup: time(info.namelookup_us),
            connect: time(info.connect_us),
            tlsHandshake: time(info.appconnect_us),
            firstByte: time(info.starttransfer_us),
            total: time(info.total_us) ?? .zero,
            redirectCount: info.redirect_count,
            bytesSent: Int64(info.size_upload),
            bytesReceived: Int64(info.size_download),
            httpVersion: version,
            remoteAddress: info.primary_ip.map { String(cString: $0) },
            reusedConnection: info.num_connects == 0
        )
    }

    /// Resumes the caller with `error`, once; later calls do nothing.
    func fail(with error: any Error) {
        finish(.failure(error))
    }

    /// Resumes the caller, once, and tells the loop the transfer is over.
    private func finish(_ result: Result<HTTPResponse, any Error>) {
        guard let continuation else { return }
        self.continuation = nil
        loop.load.subtract(1, ordering: .relaxed)
        ThreadSanitizer.release(self)   // what this thread made happens before the caller reads it
        continuation.resume(with: result)
    }

    /// Frees what the transfer holds: header list, files, the stream pump.
    func releaseResources() {
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
        if case .file(let file, _) = bodySource { fclose(file) }
        bodySource = .none
        if let outputFile { fclose(outputFile) }
        outputFile = nil
        pump?.cancel()
        pump = nil
        streamChunkSent?.resume()
        streamChunkSent = nil
        handle = nil
    }
}

// C callbacks: `user` is the unretained CurlTransfer, kept alive by the loop's `active` table.

/// "content-length", lowercase, as bytes.
private let contentLengthName: [UInt8] = Array("content-length".utf8)

private let writeCallback: sluice_data_callback = { buffer, size, count, user in
    Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue().receiveBody(buffer!, count: size * count)
}

private let headerCallback: sluice_data_callback = { buffer, size, count, user in
    Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue().receiveHeader(buffer!, count: size * count)
}

private let readCallback: sluice_data_callback = { buffer, size, count, user in
    Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue().readBody(into: buffer!, capacity: size * count)
}

private let progressCallback: sluice_xferinfo_callback = { user, downloadTotal, downloaded, uploadTotal, uploaded in
    Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
        .reportProgress(
            downloadTotal: Int64(downloadTotal), downloaded: Int64(downloaded),
            uploadTotal: Int64(uploadTotal), uploaded: Int64(uploaded)
        )
}
