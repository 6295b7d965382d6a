import Foundation
import Sluice
import SluiceCurl
import SluiceGzip
import SluiceTestSupport
import SluiceTesting
import Testing

/// Issue 53, item 5 (THREATS §14, a limit holds for the whole): a streamed `gzip, gzip` body of
/// 26 KB became one 308 MB chunk, each layer decoding a whole chunk's output at once, and the
/// 1,000× ratio held per layer let 4,354× through. Each layer now hands on at most 256 KiB at a
/// time, and the body as decoded is held to the ratio against the bytes on the wire.
@Suite("Nested content codings", .timeLimit(.minutes(2)))
struct GzipDecodingChainTests {
    static func twice(_ plain: Data) throws -> Data { try GzipCodec.compress(try GzipCodec.compress(plain)) }

    func serve(_ body: Data) throws -> MockWebServer {
        let server = try MockWebServer()
        server.setHandler { _ in .init(status: 200, headers: [("Content-Encoding", "gzip, gzip")], body: body) }
        return server
    }

    /// Streamed or read whole, a nested bomb stops at 1,000× the bytes received, not 1,000² ×.
    @Test func aNestedBombIsHeldToTheRatioOfTheWholeAgainstTheWire() async throws {
        let body = try Self.twice(Data(count: 64 << 20))
        #expect(body.count < 16 << 10, "one chunk on the wire: \(body.count) bytes")
        let server = try serve(body)
        let client = Client(transport: CurlTransport(), middlewares: [GzipMiddleware()])
        let url = server.url("/bomb")
        let expected =
            "GET \(url): decompression limit: the gzip, gzip body expands more than 1000× its \(body.count) bytes on the wire, "
            + "all its codings together (GzipCodec.Limits.maximumRatio)"
        await #expect {
            let response = try await client.stream(HTTPRequest(url: url))
            for try await chunk in response.bodyStream! { #expect(chunk.count <= GzipDecodingChain.pieceSize) }
        } throws: { error in
            (error as? SluiceError)?.code == .bodyTooLarge && (error as? SluiceError)?.message == expected
        }
        await #expect {
            _ = try await client.send(HTTPRequest(url: url))
        } throws: { error in
            (error as? SluiceError)?.code == .bodyTooLarge && (error as? SluiceError)?.message == expected
        }
    }

    /// With the ratio raised, every byte comes, a piece of at most 256 KiB at a time, in order.
    @Test func aNestedBodyComesInBoundedPiecesWholeAndInOrder() async throws {
        var plain = Data()
        for line in 0..<100_000 { plain.append(Data("line \(line) of the nested body\n".utf8)) }
        let server = try serve(try Self.twice(plain))
        let client = Client(
            transport: CurlTransport(), middlewares: [GzipMiddleware(configuration: .init(limits: .init(maximumRatio: 1_000_000)))])
        let response = try await client.stream(HTTPRequest(url: server.url("/nested")))
        var decoded = Data(), largest = 0
        for try await chunk in response.bodyStream! {
            largest = max(largest, chunk.count)
            decoded.append(chunk)
        }
        #expect(decoded == plain)
        #expect(largest <= GzipDecodingChain.pieceSize)
        #expect(response.headers["Content-Encoding"] == nil)
        // Read whole, the same bytes.
        #expect(try await client.send(HTTPRequest(url: server.url("/nested"))).body == plain)
    }

    /// The review's measure, in a process of its own: 256 MiB of zeros coded twice (about 1 KB on
    /// the wire), the ratio raised out of the way, read as a stream. Each layer decoding a chunk
    /// whole held the 256 MiB at once; in pieces, the process grows by a few MiB.
    @Test func aNestedBodyStreamedAddsAFewMegabytesNotItsSize() async throws {
        let server = try serve(try Self.twice(Data(count: 256 << 20)))
        let process = Process()
        process.executableURL = try BuiltProducts.executable("sluice-transfer-probe")
        process.arguments = ["decoded-stream", server.url("/zeros").absoluteString, String(Int.max)]
        process.environment = MemoryBounds.probeEnvironment
        let (data, status) = try await Blocking.output(of: process)
        #expect(status == 0, "\(String(decoding: data, as: UTF8.self))")
        let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Int])
        let peak = report["peakResidentKiB"] ?? .max, atHead = report["peakAtHeadKiB"] ?? 0
        print("gzip, gzip, 256 MiB streamed: peak resident \(peak) KiB, \(atHead) KiB at the head, largest chunk \(report["largestChunk"] ?? -1)")
        #expect(report["bytes"] == 256 << 20)
        #expect((report["largestChunk"] ?? .max) <= GzipDecodingChain.pieceSize)
        #expect(peak - atHead < MemoryBounds.scaled(32 * 1024), "grew \(peak - atHead) KiB")
    }
}
