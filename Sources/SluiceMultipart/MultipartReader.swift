import Foundation
import Sluice

/// Reads a multipart body's segments in order, a chunk at a time: bytes as they are, files in
/// ``MultipartFormData/chunkSize`` pieces from an open descriptor. One reader serves one send.
final class MultipartReader: Sendable {
    enum Segment: Sendable {
        case bytes(Data)
        case file(URL, size: Int64)

        var length: Int64 {
            switch self {
            case .bytes(let data): Int64(data.count)
            case .file(_, let size): size
            }
        }
    }

    private struct State {
        var index = 0
        var descriptor: Int32 = -1
        var readFromFile: Int64 = 0
    }

    private let segments: [Segment]
    private let state = Locked(State())

    init(segments: [Segment]) {
        self.segments = segments
    }

    deinit {
        state.withLock { if $0.descriptor >= 0 { close($0.descriptor) } }
    }

    /// The next chunk, or `nil` at the end.
    ///
    /// - Throws: `.invalidBody` when a file cannot be opened or read, or holds more or fewer bytes
    ///   than when the form was made.
    func next() throws(SluiceError) -> Data? {
        try state.withLock { state throws(SluiceError) -> Data? in
            while state.index < segments.count {
                switch segments[state.index] {
                case .bytes(let data):
                    state.index += 1
                    if !data.isEmpty { return data }
                case .file(let url, let size):
                    if state.descriptor < 0 {
                        state.descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
                        guard state.descriptor >= 0 else {
                            throw SluiceError(.invalidBody, "cannot open \(url.path) to send it: \(String(cString: strerror(errno)))")
                        }
                        state.readFromFile = 0
                    }
                    // Read one byte past the expected size, to notice a file that grew.
                    let wanted = Int(min(Int64(MultipartFormData.chunkSize), size - state.readFromFile + 1))
                    var chunk = Data(count: wanted)
                    let count = chunk.withUnsafeMutableBytes { read(state.descriptor, $0.baseAddress, wanted) }
                    guard count >= 0 else {
                        throw SluiceError(.invalidBody, "cannot read \(url.path) while sending it: \(String(cString: strerror(errno)))")
                    }
                    state.readFromFile += Int64(count)
                    if state.readFromFile > size || (count == 0 && state.readFromFile < size) {
                        close(state.descriptor)
                        state.descriptor = -1
                        throw SluiceError(
                            .invalidBody,
                            "\(url.path) changed size while it was being sent: \(size) bytes when the form was made, "
                                + (state.readFromFile > size ? "more" : "\(state.readFromFile)") + " now")
                    }
                    if count == 0 {
                        close(state.descriptor)
                        state.descriptor = -1
                        state.index += 1
                        continue
                    }
                    chunk.count = count
                    return chunk
                }
            }
            return nil
        }
    }
}
