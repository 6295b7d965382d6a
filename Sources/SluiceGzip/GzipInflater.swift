import CBrotli
import CZlib
import CZlibShim
import CZstd
import Foundation
import Sluice

/// Decodes a gzip, deflate, brotli or Zstandard body chunk by chunk, as it arrives, with the same errors as
/// ``GzipCodec/decompress(_:format:limits:)``: what a streamed response needs. Its size bound is
/// `GzipCodec.Limits.maximumStreamedSize` (1 GiB by default), not the whole-body
/// `maximumSize`; the ratio bounds both.
///
/// ```swift
/// import Foundation
/// import Sluice
/// import SluiceGzip
///
/// let inflater = GzipInflater(format: .gzip)
/// for try await chunk in response.bodyStream! { try FileHandle.standardOutput.write(contentsOf: inflater.decode(chunk)) }
/// try inflater.finish()        // a body cut short is an error, never a short file
/// ```
public final class GzipInflater {
    private var stream = z_stream()
    /// libbrotlidec's or libzstd's state, once started (zlib's is `stream`).
    private var decoder: OpaquePointer?
    private let format: GzipCodec.Format
    private let limits: GzipCodec.Limits
    /// The most decoded bytes, and the setting that says so (for the error).
    private let maximumSize: Int
    private let sizeSetting: String
    private var started = false
    /// Whether the last member ended exactly at the end of the input so far.
    private var atEnd = false
    private var input = 0
    private var output = 0
    private var name: String { format.rawValue }

    /// An inflater for `format`, within `limits`' ratio and streamed size (held to their ranges:
    /// see `GzipCodec.Limits`).
    public convenience init(format: GzipCodec.Format, limits: GzipCodec.Limits = .default) {
        self.init(format: format, limits: limits, whole: false)
    }

    /// An inflater bounded by `limits.maximumSize` when it decodes a `whole` body, else by
    /// `limits.maximumStreamedSize`.
    package init(format: GzipCodec.Format, limits: GzipCodec.Limits, whole: Bool) {
        self.format = format
        var limits = limits
        limits.maximumRatio = max(1, limits.maximumRatio)
        self.limits = limits
        maximumSize = (whole ? limits.maximumSize : limits.maximumStreamedSize).clamped(to: 0...(Int.max - 1))
        sizeSetting = whole ? "GzipCodec.Limits.maximumSize" : "GzipCodec.Limits.maximumStreamedSize"
    }

    deinit {
        switch format {
        case .gzip, .deflate: if started { inflateEnd(&stream) }
        case .brotli: if let decoder { BrotliDecoderDestroyInstance(decoder) }
        case .zstd: if let decoder { ZSTD_freeDCtx(decoder) }
        }
    }

    /// The bytes `chunk` decodes to (possibly none yet).
    ///
    /// - Throws: `.bodyTooLarge` past the limits; `.invalidResponse` for a corrupt stream.
    public func decode(_ chunk: Data) throws(SluiceError) -> Data {
        received(chunk.count)
        return try decode(chunk, from: 0, maxOutput: .max).output
    }

    /// Counts `count` bytes handed to this decoder, which its ratio is held against: a chunk as
    /// it comes, before it is read (``decode(_:from:maxOutput:)`` counts nothing itself).
    package func received(_ count: Int) {
        input += max(0, count)
    }

    /// Whether the decoder may hold decoded bytes it had no room for in the last call to
    /// ``decode(_:from:maxOutput:)``: called again, with no more input, it gives them.
    package private(set) var holdsOutput = false

    /// Decodes `chunk` from `offset` until it has read all of it or written `maxOutput` bytes:
    /// the bytes decoded and how many of `chunk`'s it read. One step of a chain of codings, each
    /// bounded, so no layer's output grows past `maxOutput` on its own (THREATS §14).
    ///
    /// - Throws: `.bodyTooLarge` past the limits; `.invalidResponse` for a corrupt stream.
    package func decode(_ chunk: Data, from offset: Int, maxOutput: Int) throws(SluiceError) -> (output: Data, read: Int) {
        let offset = min(max(0, offset), chunk.count)
        let available = chunk.count - offset
        guard available > 0 || holdsOutput else { return (Data(), 0) }
        if !started {
            try start(with: chunk[(chunk.startIndex + offset)...])
        } else if atEnd, available > 0 {
            switch afterEnd() {
            case .more: break
            case .ignored: return (Data(), available)
            case .corrupt(let error): throw error
            }
        }
        let maxOutput = max(1, maxOutput)
        // Decoded straight into the result: room for a typical expansion first (a small body
        // gets a small buffer), then more as it fills, in steps of at most 64 KiB, and never more
        // room than one byte past the size limit, so a bomb stops there, nor past `maxOutput`.
        var decoded = Data(count: min(maxOutput, 64 << 10, max(4 << 10, available * 4)))
        var written = 0
        var consumed = offset
        var failure: SluiceError?
        let empty: [UInt8] = [0]
        chunk.withUnsafeBytes { (whole: UnsafeRawBufferPointer) in
            // Never a nil base: a decoder drained with no input still gets a valid pointer.
            let bytes = whole.baseAddress == nil ? empty.withUnsafeBytes { UnsafeRawBufferPointer(start: $0.baseAddress, count: 0) } : whole
            while failure == nil {
                if written == decoded.count {
                    guard written < maxOutput else { return }  // holdsOutput stays as the last step left it
                    decoded.count = min(maxOutput, decoded.count + min(64 << 10, max(4 << 10, written)))
                }
                let free = decoded.count - written, allowed = maximumSize - output
                let room = allowed < free ? allowed + 1 : free
                let (step, read, produced) = decoded.withUnsafeMutableBytes { out in
                    self.step(UnsafeRawBufferPointer(rebasing: bytes[consumed...]), into: out.baseAddress! + written, room: room)
                }
                consumed += read
                holdsOutput = step.wantsRoom
                if read == 0, produced == 0, step.isPending, consumed < bytes.count || step.wantsRoom {
                    // Room to write and nothing written: a decoder that never moves on.
                    failure = SluiceError(.invalidResponse, "corrupt \(name) body: the decoder stopped making progress")
                    break
                }
                if produced > 0 {
                    output += produced
                    written += produced
                    if let limit = exceededLimit() {
                        failure = limit
                        break
                    }
                }
                switch step {
                case .needsInput: if consumed == bytes.count { return }
                case .needsRoom: continue
                case .end:
                    atEnd = true
                    guard consumed < bytes.count else { return }
                    switch afterEnd() {
                    case .more: continue
                    case .ignored:
                        consumed = bytes.count
                        return
                    case .corrupt(let error): failure = error
                    }
                case .failed(let error): failure = error
                }
            }
        }
        decoded.count = written
        if let failure { throw failure }
        return (decoded, consumed - offset)
    }

    /// Checks that the body ended where its stream ends.
    ///
    /// - Throws: `.invalidResponse` when the body stopped before the end of the stream.
    public func finish() throws(SluiceError) {
        guard started, !atEnd else { return }
        throw SluiceError(.invalidResponse, "truncated \(name) body: it ends after \(input) bytes, before the end of the stream")
    }

    /// One step of zlib, libbrotlidec or libzstd: how it ended, and the bytes it read and wrote.
    private enum Step {
        /// It wants more input (everything given was read).
        case needsInput
        /// It has more to write than there was room for.
        case needsRoom
        /// A gzip member, a deflate or brotli stream, or a zstd frame ended.
        case end
        case failed(SluiceError)

        var isPending: Bool {
            switch self {
            case .needsInput, .needsRoom: true
            case .end, .failed: false
            }
        }
        var wantsRoom: Bool {
            if case .needsRoom = self { true } else { false }
        }
    }

    /// Starts the decoder for `format`; a deflate stream's first bytes say whether it is
    /// zlib-wrapped or raw.
    private func start(with chunk: Data) throws(SluiceError) {
        switch format {
        case .gzip, .deflate:
            let windowBits: Int32 = format == .gzip ? 15 + 16 : GzipCodec.isZlibHeader(chunk) ? 15 : -15
            guard sluice_inflate_init(&stream, windowBits) == Z_OK else {
                throw SluiceError(.other, "zlib could not start decompressing (out of memory?)")
            }
        case .brotli:
            decoder = BrotliDecoderCreateInstance(nil, nil, nil)
        case .zstd:
            decoder = ZSTD_createDCtx()
            // RFC 9659 §3: a zstd coding's window is at most 8 MiB, so a frame cannot make the
            // decoder reserve libzstd's default of 128 MiB.
            if let decoder, ZSTD_isError(ZSTD_DCtx_setParameter(decoder, ZSTD_d_windowLogMax, 23)) != 0 {
                ZSTD_freeDCtx(decoder)
                self.decoder = nil
            }
        }
        if format == .brotli || format == .zstd, decoder == nil {
            throw SluiceError(.other, "\(name) could not start decoding (out of memory?)")
        }
        started = true
    }

    /// What bytes after the end of a stream are.
    private enum AfterEnd {
        /// Another gzip member (RFC 1952 §2.2) or zstd frame (RFC 8878 §3.1): decoded too.
        case more
        /// What follows a deflate stream: not read.
        case ignored
        /// Anything after a brotli stream, or a gzip member zlib cannot start again.
        case corrupt(SluiceError)
    }

    /// Gets the decoder ready for what follows the end of its stream, if anything may.
    private func afterEnd() -> AfterEnd {
        switch format {
        case .gzip:
            guard inflateReset(&stream) == Z_OK else { return .corrupt(corrupt()) }
        case .zstd: break
        case .deflate: return .ignored
        case .brotli: return .corrupt(SluiceError(.invalidResponse, "corrupt br body: data after the end of the stream"))
        }
        atEnd = false  // a new member or frame: the body is not whole until it ends too
        return .more
    }

    /// Feeds `input` to the decoder, writing at most `room` bytes to `output`.
    private func step(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer, room: Int) -> (Step, read: Int, written: Int) {
        switch format {
        case .gzip, .deflate:
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(input.count)
            stream.next_out = output.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = uInt(room)
            let status = inflate(&stream, Z_NO_FLUSH)
            let read = input.count - Int(stream.avail_in), written = room - Int(stream.avail_out)
            switch status {
            case Z_STREAM_END: return (.end, read, written)
            case Z_OK, Z_BUF_ERROR:
                // All input read with room to spare: it wants more. Otherwise call it again.
                return (stream.avail_in == 0 && stream.avail_out > 0 ? .needsInput : .needsRoom, read, written)
            default: return (.failed(corrupt()), read, written)
            }
        case .brotli:
            var availableIn = input.count, availableOut = room
            var nextIn = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
            var nextOut: UnsafeMutablePointer<UInt8>? = output.assumingMemoryBound(to: UInt8.self)
            let result = BrotliDecoderDecompressStream(decoder, &availableIn, &nextIn, &availableOut, &nextOut, nil)
            let read = input.count - availableIn, written = room - availableOut
            switch result {
            case BROTLI_DECODER_RESULT_SUCCESS: return (.end, read, written)
            case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT: return (.needsInput, read, written)
            case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT: return (.needsRoom, read, written)
            default:
                let reason = BrotliDecoderErrorString(BrotliDecoderGetErrorCode(decoder)).map { String(cString: $0) } ?? "invalid data"
                return (.failed(SluiceError(.invalidResponse, "corrupt br body: \(reason)")), read, written)
            }
        case .zstd: break
        }
        var source = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        var target = ZSTD_outBuffer(dst: output, size: room, pos: 0)
        let hint = ZSTD_decompressStream(decoder, &target, &source)
        let read = source.pos, written = target.pos
        if ZSTD_isError(hint) != 0 {
            let reason =
                ZSTD_getErrorCode(hint) == ZSTD_error_frameParameter_windowTooLarge
                ? "a frame asks for a window larger than the 8 MiB a zstd coding may use (RFC 9659)"
                : String(cString: ZSTD_getErrorName(hint))
            return (.failed(SluiceError(.invalidResponse, "corrupt zstd body: \(reason)")), read, written)
        }
        if hint == 0 { return (.end, read, written) }
        // A full output may hide more to write; otherwise libzstd has read all it was given.
        return (written == room ? .needsRoom : .needsInput, read, written)
    }

    private func exceededLimit() -> SluiceError? {
        if output > maximumSize {
            return SluiceError(.bodyTooLarge, "decompression limit: the \(name) body decodes to more than \(maximumSize) bytes (\(sizeSetting))")
        }
        let ratio = input.multipliedReportingOverflow(by: limits.maximumRatio)
        if !ratio.overflow, output > ratio.partialValue {
            return SluiceError(
                .bodyTooLarge,
                "decompression limit: the \(name) body expands more than \(limits.maximumRatio)× its \(input) bytes (GzipCodec.Limits.maximumRatio)")
        }
        return nil
    }

    private func corrupt() -> SluiceError {
        let reason = stream.msg.map { String(cString: $0) } ?? "invalid data"
        return SluiceError(.invalidResponse, "corrupt \(name) body: \(reason)")
    }
}
