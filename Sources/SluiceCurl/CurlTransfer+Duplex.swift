import CCurl
import CCurlShim
import Foundation
import Sluice

/// Full duplex on HTTP/1.x: a streamed response whose request body is a stream too is ended for
/// its reader as soon as its framing says it is whole (its declared length, or the last chunk
/// and its trailer section), while curl goes on sending the request body. libcurl ends the
/// transfer only when both directions are done, and says nothing when the response alone is, so
/// a caller that finishes its request body after reading the answer (a chat, an echo, a
/// bidirectional stream) would otherwise wait for itself. A response with neither framing (read
/// to the connection's close), and HTTP/2, end with the transfer.
///
/// After that end, the transfer belongs to the request body: it ends when the stream does (or at
/// the call's deadline or the transport's `requestTimeout`, or when the client shuts down), and
/// a failure while sending the rest has no reader left to tell; the server has answered.
extension CurlTransfer {
    /// Turns the watch on for a request whose body is a stream (from configuring its body): the
    /// debug callback then sees the response's raw bytes.
    func watchDuplexEnd(_ handle: UnsafeMutableRawPointer) {
        guard streamsBody else { return }
        watchesDuplexEnd = true
        if !recordsRequestHead { sluice_easy_setopt_debug(handle, debugCallback) }
    }

    /// For the final header section (from `watchFraming`): how this body's end will be known.
    /// `codings` is its `Transfer-Encoding`, lowercased.
    func watchFramingEnd(_ codings: [String]) {
        duplexLength = nil
        duplexChunks = nil
        guard isHTTP1 else { return }
        if codings.last == "chunked" {
            duplexChunks = ChunkedFramingScanner()
        } else if codings.isEmpty {
            if statusLineCode == 204 || statusLineCode == 304 {
                duplexLength = 0
            } else if let declared = sectionLines.declaredLength {
                duplexLength = Int64(declared)  // noted line by line; `finishHeaders` refused values that disagree
            }
        }
        if duplexLength == 0 { queueDuplexCheck() }
    }

    /// Raw bytes of the response off the connection (curl's debug callback).
    func received(_ bytes: UnsafeRawBufferPointer) {
        guard headersComplete, duplexChunks != nil else { return }
        duplexChunks?.scan(bytes)
        if duplexChunks?.isComplete == true { queueDuplexCheck() }
    }

    /// Checks, once curl's current pass is over (its callbacks have handed over every byte it
    /// read), whether the response is whole.
    func queueDuplexCheck() {
        guard !duplexCheckQueued, !streamEndedForReader else { return }
        duplexCheckQueued = true
        loop.submit(.perform { self.endIfResponseWhole() })
    }

    /// Ends the body's stream for its reader when the response is whole and every byte of it has
    /// been handed over (curl is not holding any back for a slow reader).
    func endIfResponseWhole() {
        duplexCheckQueued = false
        guard bodyWriter != nil, !streamEndedForReader, let handle, !receivePaused else { return }
        let whole: Bool
        if let duplexChunks {
            whole = duplexChunks.isComplete
        } else if let duplexLength {
            if bodyIsDecoded {
                // curl's count is of the coded bytes received, as the declared length is.
                var received: curl_off_t = 0
                whole = sluice_easy_size_download(handle, &received) == 1 && Int64(received) >= duplexLength
            } else {
                whole = bodyBytes >= duplexLength
            }
        } else {
            return
        }
        guard whole else { return }
        if failure == nil, duplexChunks != nil { _ = finishTrailers() }
        finish(failure.map { .failure($0) } ?? .success(HTTPResponse(status: HTTPStatus(code: statusLineCode))))
    }
}
