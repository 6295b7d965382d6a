import CZstd
import Foundation
import Sluice
import SluiceGzip
import SluiceTestSupport
import Testing

// The three encoded vectors were made by Python 3.11's gzip and zlib modules (zlib 1.2.13):
//   gzip.compress(b'hello\n', mtime=0); zlib.compress(b'hello deflate');
//   zlib.compressobj(6, zlib.DEFLATED, -15) over b'raw deflate' (raw deflate, no wrapper).
let gzipHello = Data(hex: "1f8b0800000000000203cb48cdc9c9e7020020303a3606000000")
let zlibHelloDeflate = Data(hex: "789ccb48cdc9c95748494dcb492c490500230c050a")
let rawDeflate = Data(hex: "2b4a2c5748494dcb492c490500")

@Suite("GzipCodec")
struct GzipCodecTests {
    @Test func decodesVectorsFromAnotherImplementation() throws {
        #expect(try GzipCodec.decompress(gzipHello, format: .gzip) == Data("hello\n".utf8))
        #expect(try GzipCodec.decompress(zlibHelloDeflate, format: .deflate) == Data("hello deflate".utf8))
        #expect(try GzipCodec.decompress(rawDeflate, format: .deflate) == Data("raw deflate".utf8))
    }

    @Test func roundTripsLargeBodies() throws {
        let json = Data((0..<20_000).map { "{\"id\":\($0),\"name\":\"item \($0)\"}," }.joined().utf8)
        let packed = try GzipCodec.compress(json)
        #expect(packed.count < json.count / 5)
        #expect(packed.prefix(2) == Data([0x1F, 0x8B]))
        #expect(try GzipCodec.decompress(packed, format: .gzip) == json)
        #expect(try GzipCodec.decompress(try GzipCodec.compress(Data()), format: .gzip) == Data())
    }

    @Test func concatenatedMembersAreOneBody() throws {
        let two = try GzipCodec.compress(Data("first ".utf8)) + GzipCodec.compress(Data("second".utf8))
        #expect(try GzipCodec.decompress(two, format: .gzip) == Data("first second".utf8))
    }

    @Test func aTruncatedStreamIsAnError() throws {
        let packed = try GzipCodec.compress(Data(repeating: 65, count: 10_000))
        for cut in [packed.count - 1, packed.count - 8, packed.count / 2, 11] {
            #expect {
                _ = try GzipCodec.decompress(packed.prefix(cut), format: .gzip)
            } throws: { error in
                let error = error as? SluiceError
                return error?.code == .invalidResponse
                    && error?.message == "truncated gzip body: it ends after \(cut) bytes, before the end of the stream"
            }
        }
    }

    @Test func aBadChecksumIsAnError() throws {
        var packed = gzipHello
        packed[packed.count - 6] ^= 0xFF  // the CRC-32 of the trailer
        #expect {
            _ = try GzipCodec.decompress(packed, format: .gzip)
        } throws: { error in
            (error as? SluiceError)?.code == .invalidResponse && (error as? SluiceError)?.message == "corrupt gzip body: incorrect data check"
        }
    }

    @Test func corruptDataIsAnError() throws {
        #expect {
            _ = try GzipCodec.decompress(Data("this is not gzip at all".utf8), format: .gzip)
        } throws: { error in
            (error as? SluiceError)?.code == .invalidResponse && (error as? SluiceError)?.message == "corrupt gzip body: incorrect header check"
        }
        var damaged = zlibHelloDeflate
        damaged[4] ^= 0x55
        #expect(throws: SluiceError.self) { _ = try GzipCodec.decompress(damaged, format: .deflate) }
    }

    @Test func theLimitsStopDecompressionBombs() throws {
        let bomb = try GzipCodec.compress(Data(repeating: 0, count: 10 << 20))  // 10 MiB of zeros, ~10 KB
        #expect {
            _ = try GzipCodec.decompress(bomb, format: .gzip, limits: .init(maximumSize: 1 << 20, maximumRatio: 100_000))
        } throws: { error in
            (error as? SluiceError)?.code == .bodyTooLarge
                && (error as? SluiceError)?.message == "decompression limit: the gzip body decodes to more than 1048576 bytes (GzipCodec.Limits.maximumSize)"
        }
        #expect {
            _ = try GzipCodec.decompress(bomb, format: .gzip, limits: .init(maximumSize: 1 << 30, maximumRatio: 100))
        } throws: { error in
            (error as? SluiceError)?.code == .bodyTooLarge
                && (error as? SluiceError)?.message
                    == "decompression limit: the gzip body expands more than 100× its \(bomb.count) bytes (GzipCodec.Limits.maximumRatio)"
        }
        #expect(try GzipCodec.decompress(bomb, format: .gzip, limits: .init(maximumSize: 10 << 20, maximumRatio: 2_000)).count == 10 << 20)
    }
}

// Made by brotlicffi 1.2.1.0 (PyPI, Google's brotli): brotlicffi.compress(b'{"greeting":"hello, brotli","n":42}\n' * 3),
// and brotlicffi.compress(b'\0' * (8 << 20)), 8 MiB of zeros in 14 bytes.
let brotliHello = Data(base64Encoded: "G2sA+J0HdqyMyciDJamh3JPpcx5ef/c5kphGViw6KaJAUwMhWDNQZFTyHaFQH6b3axC8Aw==")!
let brotliText = String(repeating: "{\"greeting\":\"hello, brotli\",\"n\":42}\n", count: 3)
let brotliZeros = Data(base64Encoded: "m///f/gnAOKxQCD3/g8=")!

/// `data` as one Zstandard frame, by libzstd's own compressor; `windowLog` sets its window.
func zstdFrame(_ data: Data, windowLog: Int32? = nil) -> Data {
    let context = ZSTD_createCCtx()
    defer { ZSTD_freeCCtx(context) }
    if let windowLog { ZSTD_CCtx_setParameter(context, ZSTD_c_windowLog, windowLog) }
    var frame = Data(count: ZSTD_compressBound(data.count))
    let size = frame.withUnsafeMutableBytes { out in
        data.withUnsafeBytes { input in ZSTD_compress2(context, out.baseAddress, out.count, input.baseAddress, input.count) }
    }
    #expect(ZSTD_isError(size) == 0)
    frame.count = ZSTD_isError(size) == 0 ? size : 0
    return frame
}

@Suite("GzipCodec, br and zstd")
struct GzipCodecBrotliZstdTests {
    let json = Data((0..<20_000).map { "{\"id\":\($0),\"name\":\"item \($0)\"}," }.joined().utf8)

    /// What decoding `data` as `format` throws, as (code, message).
    func failure(_ data: Data, _ format: GzipCodec.Format, limits: GzipCodec.Limits = .default) -> (SluiceError.Code, String)? {
        do {
            _ = try GzipCodec.decompress(data, format: format, limits: limits)
            return nil
        } catch {
            return (error.code, error.message)
        }
    }

    @Test func decodesAVectorFromTheReferenceEncoderAndLibzstdFrames() throws {
        #expect(try GzipCodec.decompress(brotliHello, format: .brotli) == Data(brotliText.utf8))
        #expect(try GzipCodec.decompress(zstdFrame(json), format: .zstd) == json)
        // RFC 8878 §3.1: frames back to back are one body.
        let two = zstdFrame(Data("first ".utf8)) + zstdFrame(Data("second".utf8))
        #expect(try GzipCodec.decompress(two, format: .zstd) == Data("first second".utf8))
        #expect(GzipCodec.Format(rawValue: "br") == .brotli && GzipCodec.Format(rawValue: "zstd") == .zstd)
    }

    @Test(arguments: [1, 7, 4096])
    func bothDecodeChunkByChunk(chunkSize: Int) throws {
        for (format, packed, plain) in [(GzipCodec.Format.brotli, brotliHello, Data(brotliText.utf8)), (.zstd, zstdFrame(json), json)] {
            let inflater = GzipInflater(format: format)
            var decoded = Data()
            for start in stride(from: 0, to: packed.count, by: chunkSize) {
                decoded += try inflater.decode(packed.subdata(in: start..<min(start + chunkSize, packed.count)))
            }
            try inflater.finish()
            #expect(decoded == plain, "\(format)")
        }
    }

    @Test func aTruncatedStreamIsAnErrorNotAShortBody() {
        let zstd = zstdFrame(json)
        for (format, packed) in [(GzipCodec.Format.brotli, brotliHello), (.zstd, zstd)] {
            for cut in [packed.count - 1, packed.count / 2, 5] {
                #expect(
                    failure(packed.prefix(cut), format)! == (
                        .invalidResponse, "truncated \(format.rawValue) body: it ends after \(cut) bytes, before the end of the stream"
                    ))
            }
        }
    }

    /// A second zstd frame (or gzip member) cut short is a truncated body, in one chunk or
    /// across chunks, even when it was cut before it wrote a byte.
    @Test func aLaterFrameCutShortIsTruncatedNotAShortBody() throws {
        let first = zstdFrame(Data("first ".utf8)), second = zstdFrame(Data("second".utf8))
        let cut = first + second.prefix(6)
        let truncated = try #require(failure(cut, .zstd), "the body came out short, not as an error")
        #expect(truncated == (.invalidResponse, "truncated zstd body: it ends after \(cut.count) bytes, before the end of the stream"))
        let inflater = GzipInflater(format: .zstd)
        #expect(try inflater.decode(first) == Data("first ".utf8))
        #expect(try inflater.decode(second.prefix(6)).isEmpty)
        #expect(throws: SluiceError.self) { try inflater.finish() }
        let member = try GzipCodec.compress(Data("b".utf8))
        let gzipCut = try GzipCodec.compress(Data("a".utf8)) + member.prefix(10)
        #expect(failure(gzipCut, .gzip)?.1 == "truncated gzip body: it ends after \(gzipCut.count) bytes, before the end of the stream")
    }

    @Test func corruptDataIsAnErrorThatSaysWhy() {
        #expect(failure(Data("not zstd at all".utf8), .zstd)! == (.invalidResponse, "corrupt zstd body: Unknown frame descriptor"))
        var badChecksum = zstdFrame(json)
        badChecksum[badChecksum.count / 2] ^= 0xFF
        #expect(failure(badChecksum, .zstd)?.0 == .invalidResponse)
        // libbrotlidec names its error (here a bad padding bit).
        #expect(failure(Data(repeating: 0xFF, count: 40), .brotli)! == (.invalidResponse, "corrupt br body: PADDING_2"))
        #expect(failure(brotliHello + Data("x".utf8), .brotli)! == (.invalidResponse, "corrupt br body: data after the end of the stream"))
    }

    @Test func aZstdFrameWithAWindowPastEightMiBIsRefused() {
        // 9 MiB of zeros with a 16 MiB window: a few hundred bytes that would make libzstd reserve
        // 16 MiB. RFC 9659 §3 bounds a zstd coding's window at 8 MiB.
        let wide = zstdFrame(Data(count: 9 << 20), windowLog: 24)
        #expect(
            failure(wide, .zstd, limits: .init(maximumRatio: .max))!
                == (.invalidResponse, "corrupt zstd body: a frame asks for a window larger than the 8 MiB a zstd coding may use (RFC 9659)"))
    }

    @Test func bombsStopAtTheSameLimitsAsGzip() {
        #expect(
            failure(brotliZeros, .brotli)!
                == (.bodyTooLarge, "decompression limit: the br body expands more than 1000× its 14 bytes (GzipCodec.Limits.maximumRatio)"))
        let zeros = zstdFrame(Data(count: 4 << 20))
        #expect(
            failure(zeros, .zstd)!
                == (.bodyTooLarge, "decompression limit: the zstd body expands more than 1000× its \(zeros.count) bytes (GzipCodec.Limits.maximumRatio)"))
        let sized = GzipCodec.Limits(maximumSize: 1 << 20, maximumRatio: .max)
        #expect(
            failure(zeros, .zstd, limits: sized)! == (
                .bodyTooLarge, "decompression limit: the zstd body decodes to more than 1048576 bytes (GzipCodec.Limits.maximumSize)"
            ))
        #expect(
            failure(brotliZeros, .brotli, limits: sized)! == (
                .bodyTooLarge, "decompression limit: the br body decodes to more than 1048576 bytes (GzipCodec.Limits.maximumSize)"
            ))
        // Streamed, the streamed size bounds it.
        let inflater = GzipInflater(format: .brotli, limits: .init(maximumRatio: .max, maximumStreamedSize: 1 << 20))
        #expect(throws: SluiceError.self) { _ = try inflater.decode(brotliZeros) }
    }
}
