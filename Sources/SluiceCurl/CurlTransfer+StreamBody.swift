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
    func startPump(_ chunks: AsyncThrowingStream<Data, any Error>) {
        pump = Task { [self] in
            do {
                for try await chunk in chunks where !chunk.isEmpty {
                    await withCheckedContinuation { (sent: CheckedContinuation<Void, Never>) in
                        loop.submit(.perform { self.feed(chunk, sent: sent) })
                    }
                }
                loop.submit(.perform { self.feedEnd(nil) })
            } catch {
                loop.submit(.perform { self.feedEnd(error) })
            }
        }
    }

    func feed(_ chunk: Data, sent: CheckedContinuation<Void, Never>) {
        guard handle != nil else { return sent.resume() }
        streamChunk = chunk
        streamOffset = 0
        streamChunkSent = sent
        resumeIfPaused()
    }

    func feedEnd(_ error: (any Error)?) {
        streamEnded = true
        if let error, !(error is CancellationError), failure == nil {
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
