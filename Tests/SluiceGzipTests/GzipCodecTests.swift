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
