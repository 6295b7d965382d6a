import CCurl
import CCurlShim
import Foundation
import Sluice
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A stream body: a task pulls chunks and hands each to the loop, which feeds curl's read callback
/// and pauses curl while it waits for the next.
extension CurlTransfer {
    func startPump(_ chunks: AsyncThrowingStream<Data, any Error>, trailers: (@Sendable () async throws -> HTTPFields)? = nil) {
        pump = Task { [self] in
            do {
                for try await chunk in chunks where !chunk.isEmpty {
                    await withCheckedContinuation { (sent: CheckedContinuation<Void, Never>) in
                        loop.submit(.perform { self.feed(chunk, sent: sent) })
                    }
                }
                // The trailers are asked for once the chunks have ended, and handed to the loop
                // with the end: curl asks for them only after the read callback says so.
                let fields = try await trailers?()
                // A field the trailers' literal left out (a CR or LF in it) is refused, as in a
                // header section: the request never ends as if it had been sent whole.
                if let invalid = fields?.invalidLiteral {
                    throw SluiceError(.invalidBody, "the request body's trailers lost a field their literal could not take: \(invalid)")
                }
                if let fields, let refused = fields.first(where: { HTTPBody.Stream.fieldsNotAllowedInTrailers.contains($0.name.lowercased()) }) {
                    throw SluiceError(
                        .invalidBody,
                        "the request body's trailers may not carry \(refused.name): it frames, routes or authenticates the message (RFC 9110 §6.5.1)")
                }
                loop.submit(
                    .perform {
                        self.requestTrailers = fields
                        self.feedEnd(nil)
                    })
            } catch {
                loop.submit(.perform { self.feedEnd(error) })
            }
        }
    }

    func feed(_ chunk: Data, sent: CheckedContinuation<Void, Never>) {
        guard handle != nil else { return sent.resume() }
        streamBytesFed += Int64(chunk.count)
        if bodyDeclaredLength >= 0, streamBytesFed > bodyDeclaredLength {
            // More than the head declared (THREATS §17): the transfer fails before its last
            // declared byte is sent (see `readBody`), so the server never reads a whole request.
            if failure == nil {
                failure = SluiceError(
                    .invalidBody,
                    "the request body stream gave more than the \(bodyDeclaredLength) bytes its length declares (HTTPBody.Stream.length, or the request's Content-Length)"
                )
            }
            sent.resume()
            return resumeIfPaused()
        }
        streamChunk = chunk
        streamOffset = 0
        streamChunkSent = sent
        resumeIfPaused()
    }

    func feedEnd(_ error: (any Error)?) {
        streamEnded = true
        if let error = error as? SluiceError, error.code == .invalidBody, failure == nil {
            failure = error
        } else if let error, !(error is CancellationError), failure == nil {
            failure = SluiceError(.invalidBody, "the request body stream failed: \(error)", underlying: error)
        }
        resumeIfPaused()
    }

    func resumeIfPaused() {
        if streamPaused {
            streamPaused = false
            loop.unpause(self)
        }
    }
}

/// curl asks for a chunked request body's trailer fields: `user` is the unretained CurlTransfer.
let trailerCallback: sluice_trailer_callback = { list, user in
    Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue().appendTrailers(to: list!)
}
