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

    @Test func byDefaultARequestBodyIsSentAsWrittenAndResponsesAreStillDecoded() async throws {
        let harness = MiddlewareHarness(GzipMiddleware(), replies: [.status(.ok)])
        _ = try await harness.send(HTTPRequest(method: .post, url: url, body: .bytes(big)))
        let sent = try #require(harness.forwarded.first)
        #expect(sent.headers["Content-Encoding"] == nil)
        #expect(harness.forwardedBodies[0] == big)
        #expect(sent.headers["Accept-Encoding"] == "gzip, deflate, br, zstd")
    }

    @Test func theOfferFollowsTheConfigurationAndARangeIsAskedForPlain() async throws {
        let fewer = MiddlewareHarness(
            GzipMiddleware(configuration: .init(acceptedCodings: [.zstd, .gzip, .zstd])), replies: [.status(.ok), .status(.ok)])
        _ = try await fewer.send(HTTPRequest(url: url))
        #expect(fewer.forwarded[0].headers["Accept-Encoding"] == "zstd, gzip")
        let none = MiddlewareHarness(GzipMiddleware(configuration: .init(acceptedCodings: [])), replies: [.status(.ok)])
        _ = try await none.send(HTTPRequest(url: url))
        #expect(none.forwarded[0].headers["Accept-Encoding"] == "identity")
        // A piece of a compressed stream cannot be decoded alone, nor joined to plain bytes.
        var ranged = HTTPRequest(url: url)
        try ranged.headers.set(name: "Range", value: "bytes=100-")
        _ = try await fewer.send(ranged)
        #expect(fewer.forwarded[1].headers["Accept-Encoding"] == "identity")
    }

    /// RFC 9110 §8.4: codings listed in the order applied are undone last first, buffered or
    /// streamed; more than five are refused whole.
    @Test func aListOfCodingsIsUndoneLastFirstOrRefusedWhole() async throws {
        let twice = zstdFrame(try GzipCodec.compress(big))  // gzip, then zstd
        var streamed = HTTPRequest(url: url)
        streamed.streamsResponseBody = true
        let harness = MiddlewareHarness(
            GzipMiddleware(),
            replies: [
                .response(HTTPResponse(status: .ok, headers: ["Content-Encoding": "gzip, identity, ZSTD"], body: twice)),
                .response(chunkedResponse(twice, size: 7, headers: ["Content-Encoding": "gzip,zstd"])),
                .response(HTTPResponse(status: .ok, headers: ["Content-Encoding": "gzip, gzip, gzip, gzip, gzip, gzip"], body: gzipHello)),
            ])
        let buffered = try await harness.send(HTTPRequest(url: url))
        #expect(buffered.body == big && buffered.headers["Content-Encoding"] == nil && buffered.headers["Content-Length"] == "\(big.count)")
        let stream = try await harness.send(streamed)
        #expect(try await stream.bodyStream!.collect() == big && stream.headers["Content-Encoding"] == nil)
        let error = await #expect(throws: SluiceError.self) { try await harness.send(HTTPRequest(url: url)) }
        #expect(error?.code == .invalidResponse)
        #expect(error?.message == "GET https://api.example.com/upload: the response lists 6 content codings; at most 5 are undone")
        #expect(error?.response?.body == gzipHello)
    }

    /// THREATS §5: a message that has no body is never decoded.
    @Test func aHeadA204AndA304AreLeftAsTheyCame() async throws {
        let harness = MiddlewareHarness(
            GzipMiddleware(),
            replies: [
                .response(HTTPResponse(status: .ok, headers: ["Content-Encoding": "gzip", "Content-Length": "26"])),
                .response(HTTPResponse(status: HTTPStatus(code: 204), headers: ["Content-Encoding": "br"])),
                .response(HTTPResponse(status: HTTPStatus(code: 304), headers: ["Content-Encoding": "zstd", "ETag": "\"v1\""])),
            ])
        let head = try await harness.send(HTTPRequest(method: .head, url: url))
        #expect(head.headers["Content-Encoding"] == "gzip" && head.headers["Content-Length"] == "26")
        #expect(try await harness.send(HTTPRequest(url: url)).headers["Content-Encoding"] == "br")
        let notModified = try await harness.send(HTTPRequest(url: url))
        #expect(notModified.status.code == 304 && notModified.headers["Content-Encoding"] == "zstd" && notModified.headers["Content-Length"] == nil)
    }

    @Test func aPartialAnswerThatComesEncodedIsPassedOnAsItCame() async throws {
        let piece = gzipHello.prefix(12)
        let harness = MiddlewareHarness(
            GzipMiddleware(),
            replies: [
                .response(
                    HTTPResponse(status: HTTPStatus(code: 206), headers: ["Content-Encoding": "gzip", "Content-Range": "bytes 0-11/26"], body: piece))
            ])
        let response = try await harness.send(HTTPRequest(url: url))
        #expect(response.status.code == 206 && response.body == piece && response.headers["Content-Encoding"] == "gzip")
    }

    @Test func aRequestThatAsksIsCompressedWhateverItsSizeAndOneThatDeclinesIsNot() async throws {
        let harness = MiddlewareHarness(
            GzipMiddleware(configuration: .init(requestCompression: .always)), replies: [.status(.ok), .status(.ok), .status(.ok)])
        var small = HTTPRequest(method: .post, url: url, body: .bytes(Data("tiny".utf8)))
        small.compressesBody = .always
        _ = try await harness.send(small)
        var declined = HTTPRequest(method: .post, url: url, body: .bytes(big))
        declined.compressesBody = .never
        _ = try await harness.send(declined)
        _ = try await harness.send(HTTPRequest(method: .post, url: url, body: .bytes(big)))  // .always
        #expect(harness.forwarded.map { $0.headers["Content-Encoding"] } == ["gzip", nil, "gzip"])
        #expect(try GzipCodec.decompress(harness.forwardedBodies[0], format: .gzip) == Data("tiny".utf8))
        #expect(harness.forwardedBodies[1] == big)
        #expect(try GzipCodec.decompress(harness.forwardedBodies[2], format: .gzip) == big)
        #expect(harness.forwardedBodies[2].count < big.count)
    }

    @Test func aHostListCompressesOnlyForThoseHostsAndAboveTheThreshold() async throws {
        let harness = MiddlewareHarness(
            GzipMiddleware(configuration: .init(requestCompression: .hosts(["API.example.com"]))),
            replies: [.status(.ok), .status(.ok), .status(.ok)])
        _ = try await harness.send(HTTPRequest(method: .post, url: url, body: .bytes(big)))
        _ = try await harness.send(HTTPRequest(method: .post, url: URL(string: "https://other.example.com/x")!, body: .bytes(big)))
        _ = try await harness.send(HTTPRequest(method: .post, url: url, body: .bytes(Data(repeating: 1, count: 1_023))))
        #expect(harness.forwarded.map { $0.headers["Content-Encoding"] } == ["gzip", nil, nil])
    }

    /// The host list is matched against the host as the transport sends it: curl sends `127.1`
    /// to 127.0.0.1, so a list naming 127.0.0.1 compresses for it.
    @Test func aHostListMatchesTheHostAsSent() async throws {
        let server = try MockWebServer()
        server.enqueue(.init(status: 200, body: "ok"))
        let pipeline = Pipeline(
            middlewares: [GzipMiddleware(configuration: .init(requestCompression: .hosts(["127.0.0.1"])))], transport: CurlTransport())
        _ = try await pipeline.send(HTTPRequest(method: .post, url: URL(string: "http://127.1:\(server.port)/x")!, body: .bytes(big)))
        #expect(server.requests.first?.header("Content-Encoding") == "gzip")
        #expect(try GzipCodec.decompress(server.requests.first?.body ?? Data(), format: .gzip) == big)
    }

    @Test func askingOnAFileOrStreamBodyIsMisconfigured() async throws {
        let harness = MiddlewareHarness(GzipMiddleware(), replies: [.status(.ok)])
        var request = HTTPRequest(method: .put, url: url, body: .file(URL(fileURLWithPath: "/tmp/upload.bin")))
        request.compressesBody = .always
        await #expect {
            _ = try await harness.send(request)
        } throws: { error in
            (error as? SluiceError)?.code == .misconfigured
                && (error as? SluiceError)?.message
                    == "request.compressesBody is set on PUT https://api.example.com/upload, whose body is a file or a stream: "
                    + "GzipMiddleware compresses in-memory bodies only (a file or stream is never loaded whole)"
        }
        #expect(harness.forwarded.isEmpty)
    }

    @Test func smallAndAlreadyEncodedBodiesAreLeftAlone() async throws {
        let harness = MiddlewareHarness(
            GzipMiddleware(configuration: .init(requestCompression: .always)), replies: [.status(.ok), .status(.ok), .status(.ok)])
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
                .response(HTTPResponse(status: .ok, headers: ["Content-Encoding": "br", "Content-Length": "52"], body: brotliHello)),
                .response(HTTPResponse(status: .ok, headers: ["Content-Encoding": " ZSTD "], body: zstdFrame(big))),
                .response(HTTPResponse(status: .ok, headers: ["Content-Encoding": "gzip, compress"], body: Data("opaque".utf8))),
            ])
        let gzip = try await harness.send(HTTPRequest(url: url))
        #expect(gzip.text == "hello\n" && gzip.headers["Content-Encoding"] == nil && gzip.headers["Content-Length"] == "6")
        #expect(try await harness.send(HTTPRequest(url: url)).text == "raw deflate")
        #expect(try await harness.send(HTTPRequest(url: url)).body == big)
        let brotli = try await harness.send(HTTPRequest(url: url))
        #expect(brotli.text == brotliText && brotli.headers["Content-Encoding"] == nil && brotli.headers["Content-Length"] == "\(brotliText.utf8.count)")
        #expect(try await harness.send(HTTPRequest(url: url)).body == big)
        // A list with a coding it does not know is passed on as it came.
        let listed = try await harness.send(HTTPRequest(url: url))
        #expect(listed.text == "opaque" && listed.headers["Content-Encoding"] == "gzip, compress")
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

/// A response whose body arrives in chunks of `size` bytes.
func chunkedResponse(_ body: Data, size: Int, headers: HTTPFields) -> HTTPResponse {
    let chunks = Locked(stride(from: 0, to: body.count, by: size).map { body.subdata(in: $0..<min($0 + size, body.count)) })
    var response = HTTPResponse(status: .ok, headers: headers)
    response.bodyStream = ResponseBodyStream(pull: { chunks.withLock { $0.isEmpty ? nil : $0.removeFirst() } })
    return response
}

@Suite("GzipMiddleware, streamed bodies")
struct GzipStreamingTests {
    let url = URL(string: "https://api.example.com/export")!
    let original = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 % 251) })

    var streamed: HTTPRequest {
        var request = HTTPRequest(url: url)
        request.streamsResponseBody = true
        return request
    }

    @Test(arguments: [1, 7, 4096])
    func aGzipBodyIsDecodedChunkByChunkAsItIsRead(chunkSize: Int) async throws {
        let packed = try GzipCodec.compress(original) + GzipCodec.compress(Data("tail".utf8))  // two members
        let harness = MiddlewareHarness(
            GzipMiddleware(), replies: [.response(chunkedResponse(packed, size: chunkSize, headers: ["Content-Encoding": "gzip"]))])
        let response = try await harness.send(streamed)
        #expect(response.headers["Content-Encoding"] == nil)
        #expect(try await response.bodyStream!.collect() == original + Data("tail".utf8))
    }

    @Test func aTruncatedStreamedBodyIsAnErrorNotAShortBody() async throws {
        let packed = try GzipCodec.compress(original)
        let cut = packed.prefix(packed.count / 2)
        let harness = MiddlewareHarness(
            GzipMiddleware(), replies: [.response(chunkedResponse(Data(cut), size: 1000, headers: ["Content-Encoding": "gzip"]))])
        let response = try await harness.send(streamed)
        await #expect {
            _ = try await response.bodyStream!.collect()
        } throws: { error in
            // The end of a streamed body names the request and the stage, as a buffered one does.
            (error as? SluiceError)?.code == .invalidResponse && (error as? SluiceError)?.stage?.is(GzipMiddleware.self) == true
                && (error as? SluiceError)?.message
                    == "\(streamed): truncated gzip body: it ends after \(cut.count) bytes, before the end of the stream"
        }
    }

    /// 4 MiB of letters from a linear congruential sequence: about 1.7× smaller gzipped.
    static let letters: Data = {
        var state: UInt64 = 11
        return Data(
            (0..<(4 << 20)).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(0x61 + (state >> 33) % 26)
            })
    }()

    /// The decoded bytes of `response`'s stream, or the error that ended it and how many came first.
    func read(_ response: HTTPResponse) async -> (read: Int, error: SluiceError?) {
        var read = 0
        do {
            for try await chunk in response.bodyStream! { read += chunk.count }
            return (read, nil)
        } catch {
            return (read, error as? SluiceError)
        }
    }

    /// Issue 41, item 9: streaming exists for bodies larger than memory, so a streamed body is not
    /// cut at the whole-body limit: 4 MiB through a middleware whose `maximumSize` is 1 MiB.
    @Test func aStreamedBodyIsNotCutAtTheWholeBodyLimit() async throws {
        let middleware = GzipMiddleware(configuration: .init(limits: .init(maximumSize: 1 << 20)))
        let packed = try GzipCodec.compress(Self.letters)
        let harness = MiddlewareHarness(middleware, replies: [.response(chunkedResponse(packed, size: 16 << 10, headers: ["Content-Encoding": "gzip"]))])
        #expect(try await harness.send(streamed).bodyStream!.collect() == Self.letters)
    }

    /// A bomb read as a stream stops at the ratio, at once: 64 MiB of zeros in 64 KB.
    @Test func aStreamedBombStopsAtTheRatio() async throws {
        let bomb = try GzipCodec.compress(Data(count: 64 << 20), level: 9)
        let harness = MiddlewareHarness(GzipMiddleware(), replies: [.response(chunkedResponse(bomb, size: 512, headers: ["Content-Encoding": "gzip"]))])
        let (read, error) = await read(try await harness.send(streamed))
        #expect(error?.code == .bodyTooLarge)
        #expect(
            error?.message.wholeMatch(
                of:
                    /GET https:\/\/api.example.com\/export: decompression limit: the gzip body expands more than 1000× its \d+ bytes \(GzipCodec.Limits.maximumRatio\)/
            )
                != nil, "\(String(describing: error))")
        #expect(read < 1_000 * bomb.count)
    }

    /// A stream has its own size limit, named in its error.
    @Test func aStreamedBodyStopsAtItsOwnLimit() async throws {
        let middleware = GzipMiddleware(configuration: .init(limits: .init(maximumStreamedSize: 1 << 20)))
        let packed = try GzipCodec.compress(Self.letters)
        let harness = MiddlewareHarness(middleware, replies: [.response(chunkedResponse(packed, size: 16 << 10, headers: ["Content-Encoding": "gzip"]))])
        let (read, error) = await read(try await harness.send(streamed))
        #expect(error?.code == .bodyTooLarge)
        #expect(
            error?.message == "\(streamed): decompression limit: the gzip body decodes to more than 1048576 bytes (GzipCodec.Limits.maximumStreamedSize)")
        #expect(read <= 1 << 20)
    }
}

@Suite("GzipMiddleware over real HTTP")
struct GzipInteropTests {
    @Test func aCompressedRequestBodyArrivesAndInflatesToTheOriginal() async throws {
        let server = try MockWebServer()
        server.enqueue(.init(status: 200, body: "ok"))
        let original = Data((0..<5_000).map { UInt8(truncatingIfNeeded: $0 % 7 + 65) })
        let pipeline = Pipeline(middlewares: [GzipMiddleware()], transport: CurlTransport())
        var request = HTTPRequest(method: .post, url: server.url("/upload"), body: .bytes(original))
        request.compressesBody = .always
        _ = try await pipeline.send(request)
        let received = try #require(server.requests.first)
        #expect(received.header("Content-Encoding") == "gzip")
        #expect(received.body.count < original.count)
        #expect(try GzipCodec.decompress(received.body, format: .gzip) == original)
    }

    @Test func aJSONPostReachesHttpbinAsWrittenByDefault() async throws {
        // 1.6 KB of JSON: by default a server that does not expect compressed bodies gets it as is.
        let items = (0..<40).map { ["id": "item-\($0)", "name": "a name long enough"] }
        let json = try JSONSerialization.data(withJSONObject: ["items": items], options: [.sortedKeys])
        #expect(json.count > 1_500)
        var builder = Client.Builder(transport: CurlTransport())
        builder.add(GzipMiddleware())
        var request = HTTPRequest(method: .post, url: try InteropServers.httpbin("/post"), body: .bytes(json))
        try request.headers.set(name: "Content-Type", value: "application/json")
        let response = try await builder.build().send(request)
        let echo = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        #expect((echo["headers"] as? [String: String])?["Content-Encoding"] == nil)
        let received = try #require(echo["json"] as? [String: Any])
        #expect(try JSONSerialization.data(withJSONObject: received, options: [.sortedKeys]) == json)
    }

    @Test(arguments: ["gzip", "deflate", "brotli"])
    func httpbinsCompressedEndpointsAreDecoded(path: String) async throws {
        let pipeline = Pipeline(middlewares: [GzipMiddleware()], transport: CurlTransport())
        let response = try await pipeline.send(HTTPRequest(url: try InteropServers.httpbin("/" + path)))
        #expect(response.status == .ok)
        #expect(response.headers["Content-Encoding"] == nil)
        #expect(response.headers["Content-Length"] == String(response.body.count))
        let json = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        #expect(json[["gzip": "gzipped", "deflate": "deflated", "brotli": "brotli"][path]!] as? Bool == true)
        #expect((json["headers"] as? [String: String])?["Accept-Encoding"] == "gzip, deflate, br, zstd")
    }

    @Test(arguments: ["br", "zstd", "zstd-frames"])
    func theReferenceEncodersAnswersAreDecodedBuffered(path: String) async throws {
        let server = try await ScriptServer.start("codings.py")
        let pipeline = Pipeline(middlewares: [GzipMiddleware()], transport: CurlTransport())
        let response = try await pipeline.send(HTTPRequest(url: URL(string: "http://127.0.0.1:\(server.port)/\(path)")!))
        #expect(response.headers["Content-Encoding"] == nil && response.headers["Content-Length"] == String(response.body.count))
        let json = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        #expect(json["accept-encoding"] as? String == "gzip, deflate, br, zstd")
        #expect((json["items"] as? [Int])?.count == 10_000 && (json["items"] as? [Int])?.last == 9_999)
    }

    @Test(arguments: ["br", "zstd"])
    func theReferenceEncodersAnswersAreDecodedStreamed(path: String) async throws {
        let server = try await ScriptServer.start("codings.py")
        var builder = Client.Builder(transport: CurlTransport())
        builder.add(GzipMiddleware())
        var request = HTTPRequest(url: URL(string: "http://127.0.0.1:\(server.port)/\(path)")!)
        request.streamsResponseBody = true
        let response = try await builder.build().send(request)
        let body = try await #require(response.bodyStream).collect()
        let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(json["coding"] as? String == path && (json["items"] as? [Int])?.count == 10_000)
    }
}
