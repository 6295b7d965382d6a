import Foundation
import Sluice
import SluiceCurl
import SluiceGzip
import SluiceTestSupport
import SluiceTesting
import Testing

/// Issue 53, item 1 (THREATS §17, framing is Sluice's): `Content-Length` and `Transfer-Encoding` on
/// the wire come from the body as sent. Each case runs against `MockWebServer`, which reads exactly
/// the length a head declares, and sends a second request after it: a request that left bytes on
/// the connection would show there as a request line the server could not read (`56789GET`).
@Suite("Framing is Sluice's", .timeLimit(.minutes(1)))
struct CurlTransportFramingTests {
    let server: MockWebServer
    let transport = CurlTransport()

    init() throws {
        server = try MockWebServer()
        server.setHandler { _ in .init(status: 200, body: "ok") }
    }

    func post(_ path: String, _ body: HTTPBody, _ fields: HTTPFields = [:]) -> HTTPRequest {
        var request = HTTPRequest(method: .post, url: server.url(path))
        request.body = body
        request.headers = fields
        return request
    }

    /// The requests the server read, as `METHOD target`, and the connections they came on.
    var seen: [String] { server.requests.map { "\($0.method) \($0.target)" } }

    func contentLengths(_ request: MockWebServer.RecordedRequest) -> [String] {
        request.headers.filter { $0.name.lowercased() == "content-length" }.map(\.value)
    }

    func sendsInStep(_ client: Client) async throws {
        let next = try await client.send(HTTPRequest(url: server.url("/next")))
        #expect(next.status == .ok)
    }

    /// The review's case: with no middleware at all, `Content-Length: 5` on ten bytes went out as
    /// declared, and `56789` was read as the start of the next request line.
    @Test func aCallersContentLengthThatDisagreesWithTheBodyIsRefusedAndTheConnectionStaysInStep() async throws {
        let client = Client(transport: transport)
        _ = try await client.send(post("/first", .bytes(Data("abc".utf8))))
        await #expect {
            _ = try await client.send(post("/lying", .bytes(Data("0123456789".utf8)), ["Content-Length": "5"]))
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .invalidHeader
                && error?.message
                    == "POST \(server.url("/lying")) carries Content-Length: 5, and its body is 10 bytes: Sluice writes Content-Length from the body as sent (leave the field out)"
        }
        try await sendsInStep(client)
        #expect(seen == ["POST /first", "GET /next"])
        #expect(Set(server.requests.map(\.connection)).count == 1)
    }

    /// A framing field that reaches the transport (a middleware of the caller's added it after
    /// the door) is held to the same rule there: the transport is the last stage that frames.
    @Test func theTransportAloneRefusesAFieldThatDisagreesAndSendsOneThatAgreesOnce() async throws {
        let lying = post("/lying", .bytes(Data("0123456789".utf8)), ["Content-Length": "11"])
        await #expect {
            _ = try await transport.send(lying, context: RequestContext())
        } throws: { error in
            (error as? SluiceError)?.message
                == "POST \(server.url("/lying")) carries Content-Length: 11, and its body is 10 bytes: Sluice writes Content-Length from the body as sent (leave the field out)"
        }
        let agreeing = post("/agreeing", .bytes(Data("0123456789".utf8)), ["content-length": "10", "Transfer-Encoding": "chunked"])
        _ = try await transport.send(agreeing, context: RequestContext())
        _ = try await transport.send(HTTPRequest(url: server.url("/next")), context: RequestContext())
        #expect(seen == ["POST /agreeing", "GET /next"])
        let received = try #require(server.requests.first)
        #expect(contentLengths(received) == ["10"])
        #expect(received.header("Transfer-Encoding") == nil)
        #expect(received.body == Data("0123456789".utf8))
    }

    /// A caller's field that agrees with the body it gave is removed at the door, so a middleware
    /// that rewrites the body is framed by what it wrote: gzip compresses 2,047 bytes to far
    /// fewer, and the call used to hang to its limit waiting for the server to read 2,047.
    @Test func aBodyAMiddlewareRewritesIsFramedAsSentNotAsTheCallerDeclared() async throws {
        let client = Client(transport: transport, middlewares: [GzipMiddleware(configuration: .init(requestCompression: .always))])
        let plain = Data(String(repeating: "sluice ", count: 300).prefix(2047).utf8)
        _ = try await client.send(post("/upload", .bytes(plain), ["Content-Length": "2047", "Content-Type": "text/plain"]))
        try await sendsInStep(client)
        #expect(seen == ["POST /upload", "GET /next"])
        let received = try #require(server.requests.first)
        #expect(received.header("Content-Encoding") == "gzip")
        #expect(received.body.count < 200)
        #expect(contentLengths(received) == [String(received.body.count)])
        #expect(Set(server.requests.map(\.connection)).count == 1)
    }

    /// A stream of unknown length takes the caller's `Content-Length` as its own: sent with it, not
    /// chunked, as a server that needs a length (a presigned upload) wants.
    @Test func aStreamOfUnknownLengthIsSentWithTheCallersContentLength() async throws {
        let client = Client(transport: transport)
        let stream = HTTPBody.Stream.oneShot(length: nil, CurlTransportTrailerTests.chunks(["01234", "56789"]))
        _ = try await client.send(post("/upload", .stream(stream), ["Content-Length": "10"]))
        try await sendsInStep(client)
        let received = try #require(server.requests.first)
        #expect(contentLengths(received) == ["10"])
        #expect(received.header("Transfer-Encoding") == nil)
        #expect(received.body == Data("0123456789".utf8))
    }

    /// A stream that gives more bytes than its declared length fails before the extra bytes go
    /// out, and one that gives fewer fails at its end; neither leaves bytes for the next request.
    @Test(arguments: [
        (
            ["01234", "56789"], 5,
            "the request body stream gave more than the 5 bytes its length declares (HTTPBody.Stream.length, or the request's Content-Length)"
        ),
        (["012"], 5, "the request body stream ended after 3 of the 5 bytes its length declares (HTTPBody.Stream.length, or the request's Content-Length)"),
    ])
    func aStreamHeldToItsDeclaredLength(parts: [String], length: Int64, message: String) async throws {
        let client = Client(transport: transport)
        _ = try await client.send(post("/first", .bytes(Data("abc".utf8))))
        let stream = HTTPBody.Stream.oneShot(length: length, CurlTransportTrailerTests.chunks(parts))
        await #expect {
            _ = try await client.send(post("/stream", .stream(stream)))
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .invalidBody && error?.message == message
        }
        try await sendsInStep(client)
        // The cut request is never read as one, nor its bytes as the next request line.
        #expect(seen == ["POST /first", "GET /next"])
    }

    /// Sluice applies no transfer coding to a request body: a caller's other than `chunked` is
    /// refused, not sent as a promise the body does not keep.
    @Test func aTransferCodingOtherThanChunkedIsRefused() async throws {
        await #expect {
            _ = try await Client(transport: transport).send(post("/coded", .bytes(Data("abc".utf8)), ["Transfer-Encoding": "gzip, chunked"]))
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .invalidHeader
                && error?.message
                    == #"POST \#(server.url("/coded")) carries Transfer-Encoding "gzip": Sluice applies no transfer coding to a request body and frames it itself (a compressed body is a Content-Encoding: GzipMiddleware)"#
        }
        #expect(server.requests.isEmpty)
    }

    /// A file body is framed by its size: a caller's field that agrees goes out once, one that
    /// does not is refused.
    @Test func aBodyFileIsFramedByItsSize() async throws {
        let file = FileManager.default.temporaryDirectory.appending(path: "sluice-framing-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(repeating: 0x61, count: 100).write(to: file)
        let client = Client(transport: transport)
        _ = try await client.send(post("/file", .file(file), ["Content-Length": "100"]))
        let received = try #require(server.requests.first)
        #expect(contentLengths(received) == ["100"])
        #expect(received.body == Data(repeating: 0x61, count: 100))
        await #expect {
            _ = try await client.send(post("/file", .file(file), ["Content-Length": "99"]))
        } throws: { error in
            (error as? SluiceError)?.message
                == "POST \(server.url("/file")) carries Content-Length: 99, and its body is 100 bytes: Sluice writes Content-Length from the body as sent (leave the field out)"
        }
    }
}
