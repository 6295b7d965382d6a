import Foundation
import Sluice
import SluiceGzip
import SluiceTestSupport
import SluiceTesting
import Testing

/// SluiceGzip's public numbers driven with every hostile value of ``CallerNumbers``: levels are
/// held to zlib's 0...9, limits of 0 or less allow nothing (`.bodyTooLarge`), and nothing traps.
@Suite("Caller numbers: SluiceGzip")
struct GzipCallerNumbersTests {
    static let text = Data(String(repeating: "sluice ", count: 400).utf8)

    @Test(.covers("GzipCodec.compress(_:level:) level", "GzipMiddleware.Configuration.compressionLevel"), arguments: CallerNumbers.int32s)
    func levels(_ level: Int32) async throws {
        let compressed = try GzipCodec.compress(Self.text, level: level)
        #expect(try GzipCodec.decompress(compressed, format: .gzip) == Self.text)
        let transport = MockTransport.successful()
        let gzip = GzipMiddleware(configuration: .init(requestCompression: .always, compressionLevel: level))
        _ = try await Client(transport: transport, middlewares: [gzip]).post("https://api.example.com/x", body: .bytes(Self.text))
        #expect(try GzipCodec.decompress(try #require(transport.requests.first?.body), format: .gzip) == Self.text)
    }

    @Test(.covers("GzipMiddleware.Configuration.compressionThreshold"), arguments: CallerNumbers.ints)
    func threshold(_ threshold: Int) async throws {
        let transport = MockTransport.successful()
        let gzip = GzipMiddleware(configuration: .init(requestCompression: .always, compressionThreshold: threshold))
        _ = try await Client(transport: transport, middlewares: [gzip]).post("https://api.example.com/x", body: .bytes(Self.text))
        let compressed = transport.requests.first?.request.headers["Content-Encoding"] == "gzip"
        #expect(compressed == (Self.text.count >= threshold))
    }

    /// A size limit of 0 or less allows no decoded byte; a ratio under 1 is 1. A body decoded
    /// whole has `maximumSize`, one decoded as a stream `maximumStreamedSize`.
    @Test(.covers("GzipCodec.Limits.maximumSize", "GzipCodec.Limits.maximumRatio", "GzipCodec.Limits.maximumStreamedSize"), arguments: CallerNumbers.ints)
    func limits(_ number: Int) throws {
        let compressed = try GzipCodec.compress(Self.text)
        for limits in [GzipCodec.Limits(maximumSize: number), GzipCodec.Limits(maximumRatio: number), GzipCodec.Limits(maximumStreamedSize: number)] {
            let ratio = max(1, limits.maximumRatio).multipliedReportingOverflow(by: compressed.count)
            let ratioFits = ratio.overflow || ratio.partialValue >= Self.text.count
            let fits = limits.maximumSize >= Self.text.count && ratioFits
            let outcome = Result { () throws(SluiceError) -> Data in try GzipCodec.decompress(compressed, format: .gzip, limits: limits) }
            if fits {
                #expect(try outcome.get() == Self.text)
            } else {
                #expect { try outcome.get() } throws: { ($0 as? SluiceError)?.code == .bodyTooLarge && "\($0)".contains("decompression limit") }
            }
            // The streaming inflater keeps the ratio, and its own size limit.
            let inflater = GzipInflater(format: .gzip, limits: limits)
            let streamed = Result { () throws(SluiceError) -> Data in
                let decoded = try inflater.decode(compressed)
                try inflater.finish()
                return decoded
            }
            let streamFits = limits.maximumStreamedSize >= Self.text.count && ratioFits
            #expect((try? streamed.get()) == (streamFits ? Self.text : nil))
        }
    }
}
