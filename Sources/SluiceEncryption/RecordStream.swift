import Foundation
import Sluice

/// A body's content sealed into aes128gcm records as it is read, one chunk at a time: the next
/// chunk of the file (or of the source stream) is read only when the transport asks for more, so
/// memory stays flat whatever the body's size.
enum RecordStream {
    /// Where the content comes from.
    enum Source: Sendable {
        case file(URL)
        case stream(HTTPBody.Stream)
    }

    /// How much of a file is read at a time.
    static let chunkSize = 64 << 10

    /// The state of one read, used by one reader at a time.
    private final class State: @unchecked Sendable {
        // @unchecked: AsyncThrowingStream(unfolding:) calls its closure for one `next()` at a
        // time (an iterator has one consumer), so these are never used from two threads at once.
        var encoder: AES128GCMRecords.Encoder?
        var file: FileHandle?
        var chunks: AsyncThrowingStream<Data, any Error>.AsyncIterator?
        var finished = false
    }

    /// The sealed records of `source`, each message under a fresh `encoder()`.
    static func stream(
        encoder: @escaping @Sendable () throws(SluiceError) -> AES128GCMRecords.Encoder, source: Source
    ) -> AsyncThrowingStream<Data, any Error> {
        let state = State()
        return AsyncThrowingStream(unfolding: {
            if state.finished { return nil }
            if state.encoder == nil {
                state.encoder = try encoder()
                switch source {
                case .file(let url):
                    do {
                        state.file = try FileHandle(forReadingFrom: url)
                    } catch {
                        throw SluiceError(.invalidBody, "cannot read the body file \(url.path): \(error.localizedDescription)", underlying: error)
                    }
                case .stream(let stream):
                    state.chunks = try stream.makeChunks().makeAsyncIterator()
                }
            }
            guard let encoder = state.encoder else { return nil }
            while true {
                let chunk: Data?
                if let file = state.file {
                    do {
                        chunk = try file.read(upToCount: chunkSize).flatMap { $0.isEmpty ? nil : $0 }
                    } catch {
                        throw SluiceError(.invalidBody, "reading the body file failed: \(error.localizedDescription)", underlying: error)
                    }
                } else {
                    chunk = try await state.chunks?.next()
                }
                guard let chunk else {
                    state.finished = true
                    try? state.file?.close()
                    return try encoder.finish()
                }
                let sealed = try encoder.add(chunk)
                if !sealed.isEmpty { return sealed }
            }
        })
    }
}
