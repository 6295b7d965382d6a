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
        let error = try await error(request, configuration)
        #expect(error.code == .bodyTooLarge)
        #expect(
            error.message.contains(
                "is larger than the limit of 4194304 bytes for a coded body written to a file (CurlTransport.Configuration.maxDecodedFileSize)"))
        let written = try FileManager.default.attributesOfItem(atPath: folder.filePath("bomb.bin"))[.size] as? Int ?? 0
        #expect(written <= 4 << 20)
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
