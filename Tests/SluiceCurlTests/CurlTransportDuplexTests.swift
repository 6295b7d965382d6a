import Foundation
import Sluice
import SluiceTestSupport
import SluiceTesting
import Testing

@testable import SluiceCurl

/// Issue 41, item 7: full duplex on HTTP/1.1. A streamed response whose end arrives while the
/// streamed request body is still open is delivered whole, and the request body can be finished
/// after it. Against `Tests/Servers/duplex.py`, which answers as soon as a request's head has come
/// and reads the body after.
@Suite("Full duplex", .timeLimit(.minutes(1)))
struct CurlTransportDuplexTests {
    /// A POST to `path` on `server` whose body is a stream that has sent `first` and stays open:
    /// the returned continuation adds to it and ends it. `shaped` may add to the stream (trailers).
    static func openUpload(
        to server: ScriptServer, _ path: String, first: String, shaped: (HTTPBody.Stream) -> HTTPBody.Stream = { $0 }
    ) -> (HTTPRequest, AsyncThrowingStream<Data, any Error>.Continuation) {
        let (chunks, requestBody) = AsyncThrowingStream<Data, any Error>.makeStream()
        requestBody.yield(Data(first.utf8))
        var request = HTTPRequest(method: .post, url: url(server, path))
        request.body = .stream(shaped(.oneShot(length: nil, chunks)))
        return (request, requestBody)
    }

    static func url(_ server: ScriptServer, _ path: String) -> URL { URL(string: "http://127.0.0.1:\(server.port)\(path)")! }

    /// Each framing: a declared length, none (204), chunks (with an extension), chunks with
    /// trailer fields, chunks written a byte at a time, and a gzip body with a declared length
    /// that curl decodes (the length is the coded one).
    @Test(arguments: [("/length", "ready"), ("/empty", ""), ("/chunked", "ready"), ("/trailers", "ready"), ("/split", "ready"), ("/gzip", "ready")])
    func theResponseEndsWhileTheRequestBodyIsStillOpen(path: String, expected: String) async throws {
        let server = try await ScriptServer.start("duplex.py")
        var configuration = CurlTransport.Configuration()
        configuration.decodesContentEncoding = path == "/gzip"
        let client = Client(transport: CurlTransport(configuration: configuration))
        let (request, requestBody) = Self.openUpload(to: server, path, first: "hello, ")
        // Past 10 s (the end never delivered), the read fails with .timedOut.
        let response = try await client.stream(request, timeout: .seconds(10))
        let body = try await response.bodyStream!.collect()
        #expect(String(decoding: body, as: UTF8.self) == expected)
        // The server has not seen the request body's end: it is still open.
        #expect(server.lines.isEmpty)
        requestBody.yield(Data("world".utf8))
        requestBody.finish()
        #expect(try await server.lines(count: 1) == ["received \(path) 12 -"])
    }

    /// The request body, finished after the answer was read, still carries its trailers; and the
    /// next call on the same client (the same connection, its handle reused) is whole too.
    @Test func theRequestBodyFinishedAfterTheAnswerKeepsItsTrailersAndTheConnectionServesTheNext() async throws {
        let server = try await ScriptServer.start("duplex.py")
        let client = Client(transport: CurlTransport())
        for index in 0..<3 {
            let (request, requestBody) = Self.openUpload(to: server, "/chunked", first: "part one ") {
                $0.withTrailers { ["X-Index": String(index)] }
            }
            let response = try await client.stream(request, timeout: .seconds(10))
            #expect(String(decoding: try await response.bodyStream!.collect(), as: UTF8.self) == "ready")
            requestBody.yield(Data("part two".utf8))
            requestBody.finish()
            #expect(try await server.lines(count: index + 1).last == "received /chunked 17 X-Index")
        }
        // A call with an ordinary body on the same client, after the duplex ones.
        let plain = try await client.send(
            HTTPRequest(method: .post, url: Self.url(server, "/length"), body: .bytes(Data("abc".utf8))))
        #expect(String(decoding: plain.body, as: UTF8.self) == "ready")
        #expect(try await server.lines(count: 4).last == "received /length 3 -")
    }

    /// A reader that lets the body go after its end does not cancel the upload: the request
    /// body still arrives whole.
    @Test func droppingTheEndedBodyLeavesTheUploadRunning() async throws {
        let server = try await ScriptServer.start("duplex.py")
        let client = Client(transport: CurlTransport())
        let (request, requestBody) = Self.openUpload(to: server, "/length", first: "first ")
        do {
            let response = try await client.stream(request, timeout: .seconds(10))
            _ = try await response.bodyStream!.collect()
        }
        try await Task.sleep(for: .milliseconds(50))
        requestBody.yield(Data("second".utf8))
        requestBody.finish()
        #expect(try await server.lines(count: 1) == ["received /length 12 -"])
    }

    /// A request body that fails after the answer was read ends the upload (the server never
    /// sees its end) and reaches no one, since the answer was whole; the client goes on serving
    /// calls.
    @Test func aRequestBodyThatFailsAfterTheAnswerEndsTheUploadQuietly() async throws {
        struct Broken: Error {}
        let server = try await ScriptServer.start("duplex.py")
        let client = Client(transport: CurlTransport())
        let (request, requestBody) = Self.openUpload(to: server, "/chunked", first: "half ")
        let response = try await client.stream(request, timeout: .seconds(10))
        #expect(String(decoding: try await response.bodyStream!.collect(), as: UTF8.self) == "ready")
        requestBody.finish(throwing: Broken())
        let next = try await client.send(
            HTTPRequest(method: .post, url: Self.url(server, "/length"), body: .bytes(Data("abc".utf8))))
        #expect(String(decoding: next.body, as: UTF8.self) == "ready")
        // Only the second request's body was read whole: the first's never ended.
        #expect(try await server.lines(count: 1) == ["received /length 3 -"])
    }
}

/// The scanner that tells where a chunked body ends, fed in pieces of every size.
@Suite("ChunkedFramingScanner")
struct ChunkedFramingScannerTests {
    @Test(arguments: [
        ("5\r\nready\r\n0\r\n\r\n", true),
        ("2;a=b\r\nre\r\n3\r\nady\r\n0\r\nX-Sum: 1\r\nX-Other: 2\r\n\r\n", true),
        ("A\r\n0123456789\r\n0\r\n\r\n", true),
        ("5\r\nready\r\n0\r\n", false),  // the trailer section's empty line has not come
        ("5\r\nre", false),
        ("10\r\n0\r\n\r\n", false),  // "0\r\n\r\n" is data of a 16-byte chunk here
        ("\r\n0\r\n\r\n", false),  // a size line without a digit: the scanner stops
        ("FFFFFFFFFFFFFFFFF\r\n0\r\n\r\n", false),  // past 2^64: stops
    ])
    func itSeesTheEndOnlyWhenTheFramingHasEnded(framing: String, ends: Bool) {
        let bytes = Array(framing.utf8)
        for piece in [1, 2, 3, 7, bytes.count] {
            var scanner = ChunkedFramingScanner()
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + piece)
                bytes[start..<end].withUnsafeBytes { scanner.scan($0) }
                start = end
            }
            #expect(scanner.isComplete == ends, "in pieces of \(piece)")
        }
    }
}
