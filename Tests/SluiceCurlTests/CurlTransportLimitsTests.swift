import Foundation
import Sluice
import SluiceCurl
import SluiceGzip
import SluiceTestSupport
import SluiceTesting
import Testing

/// Issue 27, item 2: every byte a server sends is bounded, whatever the framing, and crossing a
/// limit is a typed error at once. Each server here would otherwise send for ever.
@Suite("CurlTransport's limits on what a server sends", .timeLimit(.minutes(2)))
struct CurlTransportLimitsTests {
    let server: MockWebServer

    init() throws { server = try MockWebServer() }

    func error(_ request: HTTPRequest, _ configuration: CurlTransport.Configuration = .default) async throws -> SluiceError {
        do {
            let response = try await CurlTransport(configuration: configuration).send(request, context: RequestContext())
            Issue.record("expected an error, got \(response)")
            throw CancellationError()
        } catch let error as SluiceError {
            return error
        }
    }

    /// Answers with `piece(0)`, `piece(1)`, … written raw, for ever (until the client leaves).
    func endless(_ piece: @escaping @Sendable (Int) -> String) -> URL {
        server.setHandler { _ in .raw { index in Data(piece(index).utf8) } }
        return server.url("/endless")
    }

    @Test func anEndlessHeaderSectionStopsAtTheLimit() async throws {
        let url = endless { index in
            index == 0 ? "HTTP/1.1 200 OK\r\n" : (0..<100).map { "X-Filler-\(index)-\($0): \(String(repeating: "v", count: 100))\r\n" }.joined()
        }
        let error = try await error(HTTPRequest(url: url))
        #expect(error.code == .responseTooLarge)
        #expect(error.message.hasSuffix("got a header section larger than 262144 bytes (CurlTransport.Configuration.maxHeaderSectionSize)"))
    }

    @Test func anEndlessTrailerSectionStopsAtTheLimit() async throws {
        let url = endless { index in
            index == 0
                ? "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n"
                : "X-T\(index): \(String(repeating: "v", count: 2000))\r\n"
        }
        let error = try await error(HTTPRequest(url: url))
        #expect(error.code == .responseTooLarge)
        #expect(error.message.hasSuffix("got a trailer section larger than 65536 bytes (CurlTransport.Configuration.maxTrailerSectionSize)"))
    }

    @Test func tooManyTrailerFieldsStopAtTheLimit() async throws {
        let url = endless { index in
            index == 0 ? "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n" : "X-T\(index): 1\r\n"
        }
        let error = try await error(HTTPRequest(url: url))
        #expect(error.code == .responseTooLarge)
        #expect(error.message.hasSuffix("got more than 64 trailer fields (CurlTransport.Configuration.maxTrailerCount)"))
    }

    @Test func anEndlessChunkExtensionStopsAtTheLimit() async throws {
        let url = endless { index in
            index == 0 ? "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=" : String(repeating: "a", count: 16_384)
        }
        let started = ContinuousClock.now
        let error = try await error(HTTPRequest(url: url))
        #expect(error.code == .responseTooLarge)
        #expect(error.message.contains("chunk extensions past the limit of 65536 bytes (CurlTransport.Configuration.maxChunkExtensionSize)"))
        // At once: far sooner than the 60 s idle timeout, the only thing that stopped it before.
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test func aBodySentOneByteAChunkIsNotMistakenForExtensions() async throws {
        let body = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        server.enqueue(.init(status: 200, body: body, chunkSize: 1))
        let response = try await CurlTransport().send(HTTPRequest(url: server.url("/bytes")), context: RequestContext())
        #expect(response.body == body)
    }

    /// 1 KB of `Transfer-Encoding: gzip, gzip` that curl undoes into far more: written to a file,
    /// it stops at the decoded limit instead of filling the disk.
    @Test func aNestedTransferCodingWrittenToAFileStopsAtTheDecodedLimit() async throws {
        let inner = try GzipCodec.compress(Data(count: 64 << 20), level: 9)
        let outer = try GzipCodec.compress(inner, level: 9)
        #expect(outer.count < 100_000)
        // The issue's form: two gzip transfer codings, the body ended by the connection's close.
        server.setHandler { _ in
            .raw { index in
                index == 0 ? Data("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, gzip\r\nConnection: close\r\n\r\n".utf8) + outer : nil
            }
        }
        let folder = try TemporaryDirectory(prefix: "sluice-limits")
        var request = HTTPRequest(url: server.url("/bomb"))
        request.responseBodyFile = folder.url.appendingPathComponent("bomb.bin")
        var configuration = CurlTransport.Configuration()
        configuration.maxDecodedFileSize = 4 << 20
        configuration.maxDecodingRatio = .max  // the file's own limit alone
        let error = try await error(request, configuration)
        #expect(error.code == .bodyTooLarge)
        #expect(
            error.message.contains(
                "is larger than the limit of 4194304 bytes for a coded body written to a file (CurlTransport.Configuration.maxDecodedFileSize)"))
        let written = try FileManager.default.attributesOfItem(atPath: folder.filePath("bomb.bin"))[.size] as? Int ?? 0
        #expect(written <= 4 << 20)
    }

    /// Serves `body` raw after a head with `Transfer-Encoding: gzip, gzip`, ended by the close.
    func nestedGzip(_ body: Data) throws -> URL {
        let outer = try GzipCodec.compress(try GzipCodec.compress(body, level: 9), level: 9)
        server.setHandler { _ in
            .raw { index in
                index == 0 ? Data("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, gzip\r\nConnection: close\r\n\r\n".utf8) + outer : nil
            }
        }
        return server.url("/bomb")
    }

    /// The ratio's error, whatever count of bytes had arrived.
    static func isRatioError(_ message: String) -> Bool {
        message.wholeMatch(of: /.* decodes to more than 1000× the \d+ bytes received \(CurlTransport.Configuration.maxDecodingRatio\)/) != nil
    }

    /// Issue 41, item 9: a coding curl undoes unasked counts against a ratio wherever the body
    /// goes. 64 MiB of zeros in two gzip layers is a few hundred bytes: in memory (under the 64 MiB
    /// body limit), to a file (under the 1 GiB decoded-file limit) and as a stream (no size limit),
    /// it stops once past the first MiB, at 1,000× what came.
    @Test(arguments: ["memory", "file", "stream"])
    func aNestedTransferCodingStopsAtTheDecodingRatioWhereverItGoes(_ destination: String) async throws {
        let url = try nestedGzip(Data(count: 64 << 20))
        let folder = try TemporaryDirectory(prefix: "sluice-ratio")
        var request = HTTPRequest(url: url)
        let error: SluiceError
        switch destination {
        case "file":
            request.responseBodyFile = folder.url.appendingPathComponent("bomb.bin")
            error = try await self.error(request)
            let written = try FileManager.default.attributesOfItem(atPath: folder.filePath("bomb.bin"))[.size] as? Int ?? 0
            #expect(written <= (1 << 20) + (64 << 10))
        case "stream":
            let response = try await Client(transport: CurlTransport()).stream(request)
            var read = 0
            do {
                for try await chunk in try #require(response.bodyStream) { read += chunk.count }
                Issue.record("the stream ended after \(read) bytes")
                return
            } catch let caught as SluiceError {
                error = caught
            }
            #expect(read <= (1 << 20) + (64 << 10))
        default:
            error = try await self.error(request)
        }
        #expect(error.code == .bodyTooLarge)
        #expect(Self.isRatioError(error.message), "\(error.message)")
    }

    /// A coded body of an ordinary ratio passes whole: the ratio is no size limit.
    @Test func aTransferCodingOfAnOrdinaryRatioPassesWhole() async throws {
        // 8 MiB of letters from a linear congruential sequence: about 1.7× smaller coded.
        var state: UInt64 = 7
        let text = Data(
            (0..<(8 << 20)).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(0x61 + (state >> 33) % 26)
            })
        let url = try nestedGzip(text)
        let response = try await CurlTransport().send(HTTPRequest(url: url), context: RequestContext())
        #expect(response.body == text)
    }

    @Test func aStatusLineInsideTheHeaderSectionIsAnInvalidResponse() async throws {
        // A line curl takes for a field (it has a colon) that reads as a status line: before, it
        // began a new section, dropping the fields before it and changing the status to 302.
        server.enqueue(.init(status: 200, body: "x").with(rawStatusLine: "HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nHTTP/1.1 302 Found: x"))
        let error = try await error(HTTPRequest(url: server.url("/smuggled")))
        #expect(error.code == .invalidResponse)
        #expect(error.message.hasSuffix(#"got a status line ("HTTP/1.1 302 Found: x") inside its header section, where only fields may be"#))
    }
}
