import CZlib
import CZlibShim
import Foundation
import Sluice

/// gzip and deflate over zlib, and decoding of brotli and Zstandard, with the limits a client needs
/// against hostile input.
///
/// - ``compress(_:level:)`` writes one gzip member.
/// - ``decompress(_:format:limits:)`` decodes in steps of at most 64 KiB: gzip (several
///   concatenated members too), zlib-wrapped deflate, or raw deflate (`.deflate` tells the two
///   apart by the zlib header) through zlib; `br` through libbrotlidec; `zstd` (several frames
///   too, each with a window of at most 8 MiB, as RFC 9659 bounds it) through libzstd: the
///   decoders libcurl itself links. A corrupt or truncated stream, a bad checksum, or output past
///   ``Limits`` throws a `SluiceError` that says which; nothing is ever silently short.
///
/// ```swift
/// import Foundation
/// import SluiceGzip
///
/// let packed = try GzipCodec.compress(Data(json.utf8))
/// let plain = try GzipCodec.decompress(packed, format: .gzip)
/// ```
public enum GzipCodec {
    /// What a compressed body is; its raw value is its `Content-Encoding` token.
    public enum Format: String, Sendable, CaseIterable {
        /// RFC 1952 gzip, one or more members.
        case gzip
        /// HTTP's `deflate`: RFC 1950 zlib-wrapped deflate, or (as some servers send) raw RFC 1951.
        case deflate
        /// RFC 7932 brotli, `br` (decoding only).
        case brotli = "br"
        /// RFC 8878 Zstandard, `zstd`, one or more frames (decoding only).
        case zstd
    }

    /// Bounds on decompression, against decompression bombs.
    ///
    /// A body decoded whole (``GzipCodec/decompress(_:format:limits:)``, a response read into
    /// memory) is bounded by ``maximumSize``; a body decoded as it is read (``GzipInflater``, a
    /// streamed response) by ``maximumStreamedSize`` instead, since streaming exists for bodies
    /// larger than memory. Both by ``maximumRatio``, which is what stops a bomb.
    public struct Limits: Sendable, Hashable {
        /// The most decoded bytes of a body decoded whole; 0 or less allows none.
        public var maximumSize: Int
        /// The most decoded bytes per compressed byte, counted over the body so far; held to at
        /// least 1.
        public var maximumRatio: Int
        /// The most decoded bytes of a body decoded as it is read; 0 or less allows none.
        public var maximumStreamedSize: Int

        /// Limits of `maximumSize` decoded bytes read whole, `maximumStreamedSize` read as a
        /// stream, and `maximumRatio` times the encoded size.
        public init(maximumSize: Int = 64 << 20, maximumRatio: Int = 1_000, maximumStreamedSize: Int = 1 << 30) {
            self.maximumSize = maximumSize
            self.maximumRatio = maximumRatio
            self.maximumStreamedSize = maximumStreamedSize
        }

        /// 64 MiB read whole, 1 GiB read as a stream, at most 1,000× the compressed size.
        public static let `default` = Limits()
    }

    /// `data` as one gzip member, at `level` (0–9, held to that range; 6 is zlib's default
    /// balance).
    public static func compress(_ data: Data, level: Int32 = 6) throws(SluiceError) -> Data {
        var stream = z_stream()
        guard sluice_deflate_init(&stream, level.clamped(to: 0...9), 15 + 16) == Z_OK else {
            throw SluiceError(.other, "zlib could not start compressing (out of memory?)")
        }
        defer { deflateEnd(&stream) }
        var output = Data(count: Int(deflateBound(&stream, uLong(data.count))))
        let status: Int32 = data.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(out.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else {
            throw SluiceError(.other, "zlib could not compress \(data.count) bytes (status \(status))")
        }
        output.count = Int(stream.total_out)
        return output
    }

    /// The decoded bytes of `data`.
    ///
    /// - Throws: `.bodyTooLarge` ("decompression limit: …") past `limits`; `.invalidResponse` for a
    ///   corrupt stream, a bad checksum, or a stream that ends early.
    public static func decompress(_ data: Data, format: Format, limits: Limits = .default) throws(SluiceError) -> Data {
        if data.isEmpty { return data }
        // The same decoder a streamed body goes through, fed the whole body at once.
        let inflater = GzipInflater(format: format, limits: limits, whole: true)
        let output = try inflater.decode(data)
        try inflater.finish()
        return output
    }

    /// Whether `data` starts with an RFC 1950 zlib header: deflate method, a valid check value.
    static func isZlibHeader(_ data: Data) -> Bool {
        guard data.count >= 2 else { return false }
        let cmf = data[data.startIndex], flg = data[data.startIndex + 1]
        return cmf & 0x0F == 8 && cmf >> 4 <= 7 && (UInt16(cmf) << 8 | UInt16(flg)) % 31 == 0
    }
}
