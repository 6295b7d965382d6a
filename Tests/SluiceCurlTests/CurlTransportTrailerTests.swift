import Foundation
import Sluice
import SluiceCurl
import SluiceTestSupport
import SluiceTesting
import Testing

/// Issue 41, item 7: a streamed request body can carry trailer fields (curl's trailer callback),
/// asked for once its chunks have ended.
@Suite("Request trailers", .timeLimit(.minutes(1)))
struct CurlTransportTrailerTests {
    static func chunks(_ parts: [String]) -> AsyncThrowingStream<Data, any Error> {
        AsyncThrowingStream { continuation in
            for part in parts { continuation.yield(Data(part.utf8)) }
            continuation.finish()
        }
    }

    /// The trailers come after the last chunk, computed from what was sent: a count kept while
    /// the chunks went is right only when asked for after the end.
    @Test func aStreamedBodyCarriesTrailersComputedAfterItsChunks() async throws {
        let server = try MockWebServer()
        server.setHandler { _ in .init(status: 200, body: "ok") }
        let sent = Locked(0)
        let parts = ["alpha,", "beta,", "gamma"]
        let counted = AsyncThrowingStream<Data, any Error> { continuation in
            for part in parts {
                sent.withLock { $0 += part.utf8.count }
                continuation.yield(Data(part.utf8))
            }
            continuation.finish()
        }
        var request = HTTPRequest(method: .post, url: server.url("/upload"))
        request.body = .stream(.oneShot(length: 16, counted).withTrailers { ["X-Body-Length": String(sent.withLock { $0 }), "X-Checksum": "abc"] })
        let response = try await Client(transport: CurlTransport()).send(request)
        #expect(response.status == .ok)
        let received = try #require(server.requests.first)
        #expect(String(decoding: received.body, as: UTF8.self) == "alpha,beta,gamma")
        // Chunked (trailers need it), its declared length set aside.
        #expect(received.header("Transfer-Encoding")?.lowercased() == "chunked")
        #expect(received.header("Content-Length") == nil)
        #expect(received.trailers.map { "\($0.name): \($0.value)" } == ["X-Body-Length: 16", "X-Checksum: abc"])
    }

    /// A replayable stream gives its trailers on every send (a retry, a redirect).
    @Test func aReplayableStreamSendsItsTrailersEachTime() async throws {
        let server = try MockWebServer()
        server.enqueue(.init(status: 307, headers: [("Location", "/second")], body: Data()))
        server.enqueue(.init(status: 200, body: "ok"))
        let calls = Locked(0)
        var request = HTTPRequest(method: .put, url: server.url("/first"))
        request.body = .stream(
            .replayable(length: nil) { Self.chunks(["a", "b"]) }
                .withTrailers {
                    let call = calls.withLock { calls in
                        calls += 1
                        return calls
                    }
                    return ["X-Send": String(call)]
                })
        _ = try await Client(transport: CurlTransport()).send(request)
        #expect(server.requests.map { $0.trailers.map(\.value) } == [["1"], ["2"]])
        #expect(server.requests.map { String(decoding: $0.body, as: UTF8.self) } == ["ab", "ab"])
    }

    /// One client sends uploads with trailers and without, one after another: each arrives whole
    /// (a handle that sent trailers is not reused: libcurl 7.88 corrupts the heap on its next
    /// upload).
    @Test func uploadsWithAndWithoutTrailersFollowEachOther() async throws {
        let server = try MockWebServer()
        server.setHandler { _ in .init(status: 200, body: "ok") }
        let client = Client(transport: CurlTransport())
        for index in 0..<6 {
            var request = HTTPRequest(method: .put, url: server.url("/\(index)"))
            let stream = HTTPBody.Stream.replayable(length: nil) { Self.chunks(["part-", String(index)]) }
            request.body = .stream(index.isMultiple(of: 2) ? stream.withTrailers { ["X-Index": String(index)] } : stream)
            #expect(try await client.send(request).status == .ok)
        }
        #expect(server.requests.map { String(decoding: $0.body, as: UTF8.self) } == (0..<6).map { "part-\($0)" })
        #expect(server.requests.map { $0.trailers.map(\.value) } == [["0"], [], ["2"], [], ["4"], []])
    }

    /// A field that frames, routes or authenticates the message is refused, naming it; nothing
    /// is sent as if it were fine.
    @Test(arguments: ["Content-Length", "transfer-encoding", "Host", "Authorization", "Trailer"])
    func aFramingOrRoutingFieldIsRefused(_ name: String) async throws {
        let server = try MockWebServer()
        server.setHandler { _ in .init(status: 200, body: "ok") }
        var request = HTTPRequest(method: .post, url: server.url("/upload"))
        let fields = try HTTPFields(validating: [(name, "1")])
        request.body = .stream(.oneShot(length: nil, Self.chunks(["x"])).withTrailers { fields })
        await #expect {
            _ = try await Client(transport: CurlTransport()).send(request)
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .invalidBody
                && error?.message
                    == "the request body's trailers may not carry \(name): it frames, routes or authenticates the message (RFC 9110 §6.5.1)"
        }
    }

    /// A trailer function that throws ends the call with its error, as a failing stream does.
    @Test func aTrailerFunctionThatThrowsFailsTheCall() async throws {
        let server = try MockWebServer()
        server.setHandler { _ in .init(status: 200, body: "ok") }
        struct Broken: Error {}
        var request = HTTPRequest(method: .post, url: server.url("/upload"))
        request.body = .stream(.oneShot(length: nil, Self.chunks(["x"])).withTrailers { throw Broken() })
        await #expect {
            _ = try await Client(transport: CurlTransport()).send(request)
        } throws: { ($0 as? SluiceError)?.code == .invalidBody && ($0 as? SluiceError)?.message.contains("Broken") == true }
    }

    /// A transport that speaks HTTP/2 by prior knowledge cannot send trailers: said before
    /// anything is sent.
    @Test func priorKnowledgeHTTP2RefusesTrailers() async throws {
        let server = try MockWebServer()
        var configuration = CurlTransport.Configuration()
        configuration.httpVersion = .http2PriorKnowledge
        var request = HTTPRequest(method: .post, url: server.url("/upload"))
        request.body = .stream(.oneShot(length: nil, Self.chunks(["x"])).withTrailers { ["X-A": "1"] })
        await #expect {
            _ = try await Client(transport: CurlTransport(configuration: configuration)).send(request)
        } throws: { ($0 as? SluiceError)?.code == .invalidBody && ($0 as? SluiceError)?.message.contains("needs HTTP/1.1") == true }
        #expect(server.requests.isEmpty)
    }

    /// Issue 53, item 12: a trailer field the `HTTPFields` literal left out for its CR/LF was
    /// silently not sent; the request is refused, as it is for a header field.
    @Test func aTrailerFieldTheLiteralLeftOutFailsTheRequest() async throws {
        let server = try MockWebServer()
        server.setHandler { _ in .init(status: 200, body: "ok") }
        let signature = "abc\r\nX-Evil: 1"
        var request = HTTPRequest(method: .post, url: server.url("/upload"))
        request.body = .stream(.oneShot(length: nil, Self.chunks(["body"])).withTrailers { ["X-Signature": signature] })
        await #expect {
            _ = try await Client(transport: CurlTransport()).send(request)
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .invalidBody
                && error?.message
                    == "the request body's trailers lost a field their literal could not take: value of header \"X-Signature\" has CR (0x0D) at byte 3; CR, LF and NUL are never allowed in header fields"
        }
        #expect(server.requests.isEmpty, "no request was read whole")
    }
}
