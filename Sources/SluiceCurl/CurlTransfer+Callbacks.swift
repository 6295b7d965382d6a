import CCurl
import CCurlShim
import Foundation
import Sluice
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What curl calls on the loop thread while the transfer runs: request body reads, response
/// header lines, body bytes and progress.
extension CurlTransfer {
    /// Moves the body back to `offset` from its start (curl only ever asks for `SEEK_SET`).
    func seekBody(to offset: Int64, origin: Int32) -> Int32 {
        guard origin == SEEK_SET, offset >= 0 else { return Int32(CURL_SEEKFUNC_CANTSEEK) }
        switch bodySource {
        case .none:
            return offset == 0 ? Int32(CURL_SEEKFUNC_OK) : Int32(CURL_SEEKFUNC_FAIL)
        case .data(let data, _):
            guard offset <= Int64(data.count) else { return Int32(CURL_SEEKFUNC_FAIL) }
            bodySource = .data(data, offset: Int(offset))
            return Int32(CURL_SEEKFUNC_OK)
        case .file(let file, _):
            guard offset >= 0, fseeko(file, off_t(offset), SEEK_SET) == 0 else { return Int32(CURL_SEEKFUNC_FAIL) }
            bodyBytesRead = offset
            return Int32(CURL_SEEKFUNC_OK)
        case .stream:
            return Int32(CURL_SEEKFUNC_CANTSEEK)
        }
    }

    func readBody(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
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
            // Never more than the length the head declared, and never fewer (THREATS §17): a file
            // that changes while it is sent fails the call, and its connection is not reused.
            let wanted = bodyDeclaredLength < 0 ? capacity : Int(clamping: min(Int64(capacity), bodyDeclaredLength - bodyBytesRead))
            if wanted == 0 {
                guard bodyDeclaredLength >= 0, fgetc(file) != EOF else { return 0 }
                failure = SluiceError(
                    .invalidBody, "the body file \(path) grew while it was sent: it was \(bodyDeclaredLength) bytes when the request started")
                return sluice_readfunc_abort()
            }
            let count = fread(buffer, 1, wanted, file)
            if count == 0 && ferror(file) != 0 {
                failure = SluiceError(.invalidBody, "reading the body file \(path) failed: \(String(cString: strerror(errno)))")
                return sluice_readfunc_abort()
            }
            if count == 0, bodyDeclaredLength >= 0 {
                failure = SluiceError(
                    .invalidBody,
                    "the body file \(path) shrank while it was sent: it ended after \(bodyBytesRead) of the \(bodyDeclaredLength) bytes it had when the request started"
                )
                return sluice_readfunc_abort()
            }
            bodyBytesRead += Int64(count)
            return count
        case .stream:
            if failure != nil { return sluice_readfunc_abort() }
            let available = streamChunk.count - streamOffset
            if available > 0 {
                var count = min(capacity, available)
                // The last byte of a declared length waits for the stream's end (THREATS §17):
                // curl asks for no byte past the length, so a stream that would give more must be
                // caught before the body is whole on the wire (`feed` fails it).
                if bodyDeclaredLength >= 0, !streamEnded, bodyBytesRead + Int64(count) == bodyDeclaredLength {
                    count -= 1
                    if count == 0 {
                        // Only the held byte is left: the pump reads on, to the end or a chunk too many.
                        streamChunkSent?.resume()
                        streamChunkSent = nil
                        streamPaused = true
                        return sluice_readfunc_pause()
                    }
                }
                bodyBytesRead += Int64(count)
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
            if streamEnded {
                if bodyDeclaredLength >= 0, bodyBytesRead < bodyDeclaredLength, failure == nil {
                    failure = SluiceError(
                        .invalidBody,
                        "the request body stream ended after \(bodyBytesRead) of the \(bodyDeclaredLength) bytes its length declares (HTTPBody.Stream.length, or the request's Content-Length)"
                    )
                    return sluice_readfunc_abort()
                }
                return 0
            }
            streamPaused = true
            return sluice_readfunc_pause()
        }
    }

    func receiveHeader(_ buffer: UnsafeMutablePointer<CChar>, count: Int) -> Int {
        let line = UnsafeRawBufferPointer(start: buffer, count: count)
        if count >= 5 && line[0] == 0x48 && line[1] == 0x54 && line[2] == 0x54 && line[3] == 0x50 && line[4] == 0x2F {  // "HTTP/"
            // A new response (the first, after an interim 1xx, or curl's second round of a digest
            // challenge): a new section. A status line inside a section, or after the final
            // answer when no second round can come, is a line no server may send there.
            if sectionOpen || (headersComplete && statusLineCode >= 200 && digestCredentials == nil) {
                failure = SluiceError(
                    .invalidResponse,
                    "\(request) got a status line (\(String(reflecting: String(decoding: line.prefix(40), as: UTF8.self).trimmingCharacters(in: .newlines).escapingControlCharacters()))) "
                        + (sectionOpen ? "inside its header section" : "after its answer") + ", where only fields may be")
                return 0
            }
            sectionOpen = true
            sectionLines = SectionLines()
            framingBaseline = nil
            headers = HTTPFields()
            headerSection = []
            headerSection.reserveCapacity(512)
            headersComplete = false
            statusLineReason = Self.reasonPhrase(line)
            statusLineCode = Self.statusCode(line)
            // "HTTP/1.": the connection speaks HTTP/1.x, so bytes left on it are no other stream's.
            if count >= 7 && line[5] == 0x31 && line[6] == 0x2E, let handle {
                socket = loop.markHTTP1(handle)
                isHTTP1 = true
            }
            return count
        }
        if framingBaseline != nil { bytesAfterBaseline += count }
        if line[0] == 0x0D || line[0] == 0x0A {
            // The empty line: the header section is complete (trailers may follow it).
            if headersComplete { return count }
            sectionOpen = false
            guard finishHeaders() else { return 0 }
            if streamsBody, statusLineCode >= 200 { deliverHead() }
            return count
        }
        if headersComplete {
            trailerBytes += count
            trailerCount += 1
            if trailerBytes > limits.trailerSection || trailerCount > limits.trailerCount {
                let tooMany = trailerCount > limits.trailerCount
                let what =
                    tooMany
                    ? "more than \(limits.trailerCount) trailer fields (CurlTransport.Configuration.maxTrailerCount)"
                    : "a trailer section larger than \(limits.trailerSection) bytes (CurlTransport.Configuration.maxTrailerSectionSize)"
                failure = SluiceError(.responseTooLarge, "\(request) got \(what)")
                return 0
            }
        } else {
            headerBytes += count
            let declaredLength = sectionLines.note(line)
            if headerBytes > limits.headerSection {
                failure = SluiceError(
                    .responseTooLarge,
                    "\(request) got a header section larger than \(limits.headerSection) bytes (CurlTransport.Configuration.maxHeaderSectionSize)")
                return 0
            }
            if outputFile == nil, let declaredLength, declaredLength > 0 {
                // One allocation for a body of ordinary size instead of a copy at every doubling; no
                // more than 1 MiB on the server's word (a declared length can be a lie).
                body.reserveCapacity(Self.initialBodyCapacity(declared: declaredLength, limit: maxBodySize))
            }
        }
        // Header lines, or trailer lines after the section: kept raw, checked all at once (typed
        // as bytes, so the append is one copy).
        headerSection.append(contentsOf: UnsafeBufferPointer(start: UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: count))
        return count
    }

    /// Parses the collected header lines into `headers`; false (with `failure` set) when a line
    /// is invalid.
    func finishHeaders() -> Bool {
        do {
            headers = try HTTPFields(parsing: headerSection)
        } catch {
            failure = SluiceError(.invalidResponse, "\(request) got an invalid header: \(error.message)", underlying: error.underlying)
            return false
        }
        if sectionLines.contentLengthNeedsCheck, let problem = Self.contentLengthProblem(headers.values(for: "Content-Length")) {
            failure = SluiceError(.invalidResponse, "\(request) got \(problem) (RFC 9112 §6.3: the body's length cannot be known)")
            return false
        }
        headerSection = []  // the fields now own the bytes
        headersComplete = true
        if statusLineCode >= 200 { watchFraming() }
        context.responseHead?(HTTPStatus(code: statusLineCode, reasonPhrase: statusLineReason.isEmpty ? nil : statusLineReason), headers)
        return true
    }

    /// For the final section: whether curl undoes a coding to write the body, and for a chunked
    /// HTTP/1.1 body, the watch on its framing (curl's progress callback, turned on for it).
    func watchFraming() {
        // Most answers have neither field (noted as the lines came): no lookup, and no list made.
        let codings = sectionLines.transferEncoding ? Self.codings(headers.values(for: "Transfer-Encoding")) : []
        let contentCodings =
            limits.decodesContentEncoding && sectionLines.contentEncoding ? Self.codings(headers.values(for: "Content-Encoding")) : []
        bodyIsDecoded = codings.contains { $0 != "chunked" && $0 != "identity" } || contentCodings.contains { $0 != "identity" && !$0.isEmpty }
        if watchesDuplexEnd { watchFramingEnd(codings) }
        // The connection's count is read now, only for a chunked HTTP/1.1 body (two system
        // calls): the head is behind it, and body bytes curl has read but not yet handed over
        // (at most one buffer) only make the framing look smaller.
        var consumed: UInt64 = 0
        guard isHTTP1, codings.last == "chunked", let handle, sluice_socket_consumed(socket, &consumed) == 1 else { return }
        framingBaseline = consumed
        bytesAfterBaseline = 0
        sluice_easy_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
    }

    /// The codings a `Transfer-Encoding` or `Content-Encoding` field lists, lowercased, in order.
    static func codings(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map { $0.trimmingOptionalWhitespace().lowercased() }
    }

    /// Whether the chunk framing read so far stays within the limit: what the connection
    /// delivered since the final status line, less the header lines and the body bytes, less 6
    /// bytes of framing per body byte (the most a body sent one byte a chunk needs), is at most
    /// ``Limits/chunkExtensions``. False, with `failure` set, when it is not.
    func framingWithinLimit() -> Bool {
        guard let baseline = framingBaseline else { return true }
        var consumed: UInt64 = 0
        guard sluice_socket_consumed(socket, &consumed) == 1, consumed >= baseline else { return true }
        let read = Int64(clamping: consumed - baseline)
        let framing = read - Int64(bytesAfterBaseline) - bodyBytes
        guard framing > Int64(limits.chunkExtensions) + 6 * bodyBytes else { return true }
        failure = SluiceError(
            .responseTooLarge,
            "\(request) got \(framing) bytes of chunk framing for \(bodyBytes) body bytes: chunk extensions past the limit of "
                + "\(limits.chunkExtensions) bytes (CurlTransport.Configuration.maxChunkExtensionSize)")
        return false
    }

    /// Keeps the trailer fields (lines after the header section, from a chunked body) apart from
    /// `headers`, in ``trailers``.
    func finishTrailers() -> Bool {
        guard !headerSection.isEmpty else { return true }
        do {
            trailers = try HTTPFields(parsing: headerSection)
        } catch {
            failure = SluiceError(.invalidResponse, "\(request) got an invalid trailer: \(error.message)", underlying: error.underlying)
            return false
        }
        headerSection = []
        return true
    }

    /// Whether the response set cookies (for saving a file-backed jar).
    var receivedCookies: Bool { headers.contains("Set-Cookie") }

    func receiveBody(_ buffer: UnsafeMutablePointer<CChar>, count: Int) -> Int {
        if bodyIsDecoded, !decodingWithinRatio(adding: count) { return 0 }
        if let bodyWriter {
            switch bodyWriter.write(Data(bytes: buffer, count: count)) {
            case .accepted:
                bodyBytes += Int64(count)
                if watchesDuplexEnd { queueDuplexCheck() }
                return count
            case .full:
                // The reader is behind: curl keeps this chunk and stops reading until it catches up.
                receivePaused = true
                return sluice_writefunc_pause()
            case .abandoned: return 0
            }
        }
        if let outputFile {
            bodyBytes += Int64(count)
            if bodyIsDecoded, bodyBytes > limits.decodedFile {
                failure = SluiceError(
                    .bodyTooLarge,
                    "the decoded response body of \(request) is larger than the limit of \(limits.decodedFile) bytes for a coded body written to a file "
                        + "(CurlTransport.Configuration.maxDecodedFileSize)")
                return 0
            }
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
        bodyBytes += Int64(count)
        return count
    }

    /// Whether the body curl decodes, `count` more bytes included, stays within
    /// ``Limits/decodingRatio`` times the body bytes received (curl's download count, taken
    /// before it decodes); the first MiB always does. False, with `failure` set, when it does not.
    func decodingWithinRatio(adding count: Int) -> Bool {
        let decoded = bodyBytes + Int64(count)
        guard decoded > Self.decodingAllowance, let handle else { return true }
        var received: curl_off_t = 0
        guard sluice_easy_size_download(handle, &received) == 1 else { return true }
        let allowed = Int64(received).multipliedReportingOverflow(by: limits.decodingRatio)
        guard !allowed.overflow, decoded > max(Self.decodingAllowance, allowed.partialValue) else { return true }
        failure = SluiceError(
            .bodyTooLarge,
            "the response body of \(request) decodes to more than \(limits.decodingRatio)× the \(received) bytes received "
                + "(CurlTransport.Configuration.maxDecodingRatio)")
        return false
    }

    /// What a decoded body may reach whatever its ratio: 1 MiB.
    static let decodingAllowance: Int64 = 1 << 20

    func reportProgress(downloadTotal: Int64, downloaded: Int64, uploadTotal: Int64, uploaded: Int64) -> Int32 {
        if framingBaseline != nil, !framingWithinLimit() { return 1 }
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
}

// The C callbacks: `user` is the unretained CurlTransfer, kept alive by the loop's `active` table.

let writeCallback: sluice_data_callback = { buffer, size, count, user in
    Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue().receiveBody(buffer!, count: size * count)
}

let headerCallback: sluice_data_callback = { buffer, size, count, user in
    Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue().receiveHeader(buffer!, count: size * count)
}

/// curl asks for the body from its start again when it must send the request again (a reused
/// connection that turned out closed, an authentication round): memory and file bodies rewind, a
/// stream cannot (curl then fails the call, which says so).
let seekCallback: sluice_seek_callback = { user, offset, origin in
    Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue().seekBody(to: Int64(offset), origin: origin)
}

let readCallback: sluice_data_callback = { buffer, size, count, user in
    Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue().readBody(into: buffer!, capacity: size * count)
}

/// With ``CurlTransport/Configuration-swift.struct/recordsRequestHeads``: keeps the header block
/// curl writes (`CURLINFO_HEADER_OUT`), a new one replacing a finished one. For a full-duplex
/// transfer: hands the response body's raw bytes (`CURLINFO_DATA_IN`, before curl decodes the
/// chunks) to ``CurlTransfer/received(_:)``. curl's other debug output is ignored.
let debugCallback: sluice_debug_callback = { handle, type, data, size, user in
    guard type == CURLINFO_HEADER_OUT || type == CURLINFO_DATA_IN, let data, let user else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
    // Only the transfer's own handle: libcurl 8 hands the callback and its data on to the handles
    // it starts for DNS over HTTPS, whose heads and bytes are not this request's.
    guard let handle, UnsafeMutableRawPointer(handle) == transfer.handle else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    if type == CURLINFO_DATA_IN {
        transfer.received(bytes)
        return 0
    }
    guard transfer.recordsRequestHead else { return 0 }
    if transfer.requestHead.suffix(4).elementsEqual([13, 10, 13, 10]) { transfer.requestHead.removeAll() }
    transfer.requestHead.append(contentsOf: bytes)
    return 0
}

let progressCallback: sluice_xferinfo_callback = { user, downloadTotal, downloaded, uploadTotal, uploaded in
    Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
        .reportProgress(
            downloadTotal: Int64(downloadTotal), downloaded: Int64(downloaded),
            uploadTotal: Int64(uploadTotal), uploaded: Int64(uploaded)
        )
}
