import Foundation
import Sluice
import SluiceCurl
import SluiceGzip
import SluiceTestSupport
import SluiceTesting
import Testing

@Suite("GzipMiddleware")
struct GzipMiddlewareTests {
    let url = URL(string: "https://api.example.com/upload")!
    let big = Data(String(repeating: "{\"k\":\"value\"},", count: 200).utf8)  // 2,800 bytes

    @Test func largeRequestBodiesAreCompressed() async throws {
        let harness = MiddlewareHarness(GzipMiddleware(), replies: [.status(.ok)])
        _ = try await harness.send(HTTPRequest(method: .post, url: url, body: .bytes(big)))
        let sent = try #require(harness.forwarded.first)
        #expect(sent.headers["Content-Encoding"] == "gzip")
        #expect(sent.headers["Accept-Encoding"] == "gzip, deflate")
        #expect(try GzipCodec.decompress(harness.forwardedBodies[0], format: .gzip) == big)
        #expect(harness.forwardedBodies[0].count < big.count)
    }

    @Test func smallAndAlreadyEncodedBodiesAreLeftAlone() async throws {
        let harness = MiddlewareHarness(GzipMiddleware(), replies: [.status(.ok), .status(.ok), .status(.ok)])
        _ = try await harness.send(HTTPRequest(method: .post, url: url, body: .bytes(Data(repeating: 1, count: 1_023))))
        _ = try await harness.send(HTTPRequest(method: .post, url: url, headers: ["Content-Encoding": "br"], body: .bytes(big)))
        _ = try await harness.send(HTTPRequest(method: .get, url: url, headers: ["Accept-Encoding": "identity"]))
        #expect(harness.forwarded[0].headers["Content-Encoding"] == nil && harness.forwardedBodies[0].count == 1_023)
        #expect(harness.forwarded[1].headers["Content-Encoding"] == "br" && harness.forwardedBodies[1] == big)
        #expect(harness.forwarded[2].headers["Accept-Encoding"] == "identity")
    }

    @Test func compressedResponsesAreDecodedAndTheirFieldsFixed() async throws {
        let harness = MiddlewareHarness(
            GzipMiddleware(),
            replies: [
                .response(HTTPResponse(status: .ok, headers: ["Content-Encoding": "gzip", "Content-Length": "26"], body: gzipHello)),
                .response(HTTPResponse(status: .ok, headers: ["Content-Encoding": "deflate"], body: rawDeflate)),
                .response(HTTPResponse(status: .ok, headers: ["Content-Encoding": "x-gzip"], body: try GzipCodec.compress(big))),
                .response(HTTPResponse(status: .ok, headers: ["Content-Encoding": "br"], body: Data("opaque".utf8))),
            ])
        let gzip = try await harness.send(HTTPRequest(url: url))
        #expect(gzip.text == "hello\n" && gzip.headers["Content-Encoding"] == nil && gzip.headers["Content-Length"] == "6")
        #expect(try await harness.send(HTTPRequest(url: url)).text == "raw deflate")
        #expect(try await harness.send(HTTPRequest(url: url)).body == big)
        let brotli = try await harness.send(HTTPRequest(url: url))
        #expect(brotli.text == "opaque" && brotli.headers["Content-Encoding"] == "br")
    }

    @Test func aCorruptResponseKeepsTheResponseInTheError() async throws {
        let harness = MiddlewareHarness(
            GzipMiddleware(),
            replies: [
                .response(HTTPResponse(status: .ok, headers: ["Content-Encoding": "gzip"], body: gzipHello.prefix(15)))
            ])
        await #expect {
            _ = try await harness.send(HTTPRequest(url: url))
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .invalidResponse
                && error?.message == "GET https://api.example.com/upload: truncated gzip body: it ends after 15 bytes, before the end of the stream"
                && error?.response?.body == gzipHello.prefix(15)
        }
    }

    @Test func theLimitsApplyToResponses() async throws {
        let bomb = try GzipCodec.compress(Data(repeating: 0, count: 4 << 20))
        let middleware = GzipMiddleware(configuration: .init(limits: .init(maximumSize: 1 << 20)))
        let harness = MiddlewareHarness(middleware, replies: [.response(HTTPResponse(status: .ok, headers: ["Content-Encoding": "gzip"], body: bomb))])
        await #expect { _ = try await harness.send(HTTPRequest(url: url)) } throws: { error in
            (error as? SluiceError)?.code == .bodyTooLarge && (error as? SluiceError)?.message.contains("decompression limit") == true
        }
    }
}

@Suite("GzipMiddleware over real HTTP")
struct GzipInteropTests {
    @Test func aCompressedRequestBodyArrivesAndInflatesToTheOriginal() async throws {
        let server = try MockWebServer()
        server.enqueue(.init(status: 200, body: "ok"))
        let original = Data((0..<5_000).map { UInt8(truncatingIfNeeded: $0 % 7 + 65) })
        let pipeline = Pipeline(middlewares: [GzipMiddleware()], transport: CurlTransport())
        _ = try await pipeline.send(HTTPRequest(method: .post, url: server.url("/upload"), body: .bytes(original)))
        let received = try #require(server.requests.first)
        #expect(received.header("Content-Encoding") == "gzip")
        #expect(received.body.count < original.count)
        #expect(try GzipCodec.decompress(received.body, format: .gzip) == original)
    }

    @Test(arguments: ["gzip", "deflate"])
    func httpbinsCompressedEndpointsAreDecoded(path: String) async throws {
        let pipeline = Pipeline(middlewares: [GzipMiddleware()], transport: CurlTransport())
        let response = try await pipeline.send(HTTPRequest(url: try InteropServers.httpbin("/" + path)))
        #expect(response.status == .ok)
        #expect(response.headers["Content-Encoding"] == nil)
        #expect(response.headers["Content-Length"] == String(response.body.count))
        let json = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        #expect(json[path == "gzip" ? "gzipped" : "deflated"] as? Bool == true)
    }
}
