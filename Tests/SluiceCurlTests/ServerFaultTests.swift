import Foundation
import Sluice
import SluiceTestSupport
import SluiceTesting
import Testing

@testable import SluiceCurl

/// Servers that lie about their bodies, flood their heads or trickle: each ends in a clear error
/// within the configured limits, never a hang or a silent cut.
@Suite("Server faults against MockWebServer")
struct ServerFaultTests {
    let server: MockWebServer
    let transport = CurlTransport()

    init() throws {
        server = try MockWebServer()
    }

    func failure(_ path: String) async throws -> SluiceError {
        do {
            let response = try await transport.send(HTTPRequest(url: server.url(path)), context: RequestContext(deadline: .now + .seconds(30)))
            Issue.record("expected an error, got \(response)")
            throw CancellationError()
        } catch let error as SluiceError {
            return error
        }
    }

    @Test func twoContentLengthsThatDisagreeAreAnInvalidResponse() async throws {
        server.enqueue(.init(status: 200, headers: [("Content-Length", "5"), ("Content-Length", "7")], body: "hello"))
        let error = try await failure("/two-lengths")
        #expect(error.code == .invalidResponse)
        #expect(
            error.message
                == "GET \(server.url("/two-lengths").absoluteString) got Content-Length fields that disagree (5 and 7) (RFC 9112 §6.3: the body's length cannot be known)"
        )
    }

    @Test func aContentLengthThatOverflowsIsAnInvalidResponse() async throws {
        server.enqueue(.init(status: 200, headers: [("Content-Length", "99999999999999999999999")], body: "hello"))
        let error = try await failure("/huge-length")
        #expect(error.code == .invalidResponse)
        #expect(
            error.message
                == "GET \(server.url("/huge-length").absoluteString) got a Content-Length too large to hold (99999999999999999999999) (RFC 9112 §6.3: the body's length cannot be known)"
        )
    }

    /// What a section's lines say, noted line by line: the full Content-Length check is skipped
    /// only for no field or one plain number, never after a folded line; a plain number is the
    /// length declared (what the body's buffer reserves), anything else declares none.
    @Test func sectionLinesSkipTheCheckOnlyForOnePlainNumber() {
        func declared(_ line: String) -> Int? {
            var section = CurlTransfer.SectionLines()
            return Array((line + "\r\n").utf8).withUnsafeBytes { section.note($0) }
        }
        #expect(declared("Content-Length: 10") == 10)
        #expect(declared("content-length:\t7 ") == 7)
        for line in ["Content-Length: 5 5", "Content-Length: -1", "Content-Length:", "X-Content-Length: 9", "Server: 9"] {
            #expect(declared(line) == nil, "\(line)")
        }
        func noted(_ lines: [String]) -> CurlTransfer.SectionLines {
            var section = CurlTransfer.SectionLines()
            for line in lines {
                _ = Array((line + "\r\n").utf8).withUnsafeBytes { section.note($0) }
            }
            return section
        }
        #expect(!noted(["Server: x"]).contentLengthNeedsCheck)
        #expect(!noted(["Content-Length: 10"]).contentLengthNeedsCheck)
        #expect(!noted(["content-LENGTH:\t 123456789012345678 "]).contentLengthNeedsCheck)
        for suspicious in [
            ["Content-Length: 10", "Content-Length: 10"], ["Content-Length: 10, 10"], ["Content-Length: 5 5"], ["Content-Length: -1"],
            ["Content-Length: 1234567890123456789"], ["Content-Length:"], ["Content-Length: 10", " 11"],
        ] {
            #expect(noted(suspicious).contentLengthNeedsCheck, "\(suspicious)")
        }
        #expect(!noted(["Content-Length-Extra: 5 5", "X-Content-Length: x"]).contentLengthNeedsCheck)
        let codings = noted(["TRANSFER-ENCODING: chunked", "content-encoding: gzip"])
        #expect(codings.transferEncoding && codings.contentEncoding)
        let neither = noted(["Transfer-Encodings: chunked", "X-Content-Encoding: gzip"])
        #expect(!neither.transferEncoding && !neither.contentEncoding)
    }

    @Test func contentLengthRulesAndTheReservationCap() {
        #expect(CurlTransfer.contentLengthProblem(["10"]) == nil)
        #expect(CurlTransfer.contentLengthProblem(["10", "10"]) == nil)
        #expect(CurlTransfer.contentLengthProblem(["10, 10"]) == nil)
        #expect(CurlTransfer.contentLengthProblem(["10", "11"]) == "Content-Length fields that disagree (10 and 11)")
        #expect(CurlTransfer.contentLengthProblem(["99999999999999999999"]) == "a Content-Length too large to hold (99999999999999999999)")
        #expect(CurlTransfer.contentLengthProblem(["-1"]) == #"a Content-Length that is not a number ("-1")"#)
        #expect(CurlTransfer.contentLengthProblem(["1e3"]) == #"a Content-Length that is not a number ("1e3")"#)
        // 64 answers that each claim 67 MB reserve 1 MiB each, not 4.4 GB together.
        #expect(CurlTransfer.initialBodyCapacity(declared: 67_000_000, limit: 64 << 20) == 1 << 20)
        #expect(CurlTransfer.initialBodyCapacity(declared: 4_096, limit: 64 << 20) == 4_096)
        #expect(CurlTransfer.initialBodyCapacity(declared: 4_096, limit: 1_000) == 1_000)
    }

    @Test func aHundredKilobyteHeaderLineIsRefused() async throws {
        server.enqueue(.init(status: 200, headers: [("X-Huge", String(repeating: "a", count: 100 * 1024))], body: "x"))
        let error = try await failure("/huge-header")
        #expect(error.code == .invalidResponse, "\(error)")
        #expect(error.message == "GET \(server.url("/huge-header").absoluteString): the response's header section is larger than libcurl's 100 KB limit")
    }

    @Test func aBodyShorterThanItsContentLengthIsConnectionLost() async throws {
        server.enqueue(.init(status: 200, headers: [("Content-Length", "1000")], body: Data(count: 400), closesConnection: true))
        let error = try await failure("/short")
        #expect(error.code == .connectionLost)
        #expect(error.message.contains("600 bytes remaining"), "\(error)")
    }

    @Test func aBodyLongerThanItsContentLengthIsCutThereAndTheRestNeverBecomesAResponse() async throws {
        // RFC 9112 §6.3: what follows the declared length must not be read as the next response.
        // The extra bytes look like one, to show they are not taken for it.
        let smuggled = "HTTP/1.1 200 OK\r\nContent-Length: 8\r\nX-Smuggled: yes\r\n\r\npoisoned"
        server.enqueue(.init(status: 200, headers: [("Content-Length", "5")], body: Data(("hello" + smuggled).utf8)))
        server.enqueue(.init(status: 200, body: Data("second".utf8)))
        server.enqueue(.init(status: 200, body: Data("third".utf8)))
        let first = try await transport.send(HTTPRequest(url: server.url("/first")), context: RequestContext())
        #expect(first.body == Data("hello".utf8))
        for (path, body) in [("/second", "second"), ("/third", "third")] {
            let response = try await transport.send(HTTPRequest(url: server.url(path)), context: RequestContext())
            #expect(response.body == Data(body.utf8))
            #expect(response.headers["X-Smuggled"] == nil)
        }
        #expect(server.requests.map(\.target) == ["/first", "/second", "/third"])
        // The connection the extra bytes arrived on was dropped; the next one was kept.
        #expect(server.connectionCount == 2)
        #expect(server.requests.map(\.connection) == [0, 1, 1])
    }

    @Test(arguments: ["bytes", "file", "stream"])
    func aRequestWithABodyAfterExtraBytesGoesOutWholeOnANewConnection(_ kind: String) async throws {
        server.enqueue(.init(status: 200, headers: [("Content-Length", "2")], body: Data("okHTTP/1.1 204 No Content\r\n\r\n".utf8)))
        server.enqueue(.init(status: 201, body: Data("created".utf8)))
        _ = try await transport.send(HTTPRequest(url: server.url("/first")), context: RequestContext())
        let payload = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let folder = try TemporaryDirectory(prefix: "sluice-fault")
        let body: HTTPBody =
            switch kind {
            case "bytes": .bytes(payload)
            case "file": .file(try folder.write(payload, to: "body.bin"))
            default:
                .stream(
                    .oneShot(
                        length: Int64(payload.count),
                        AsyncThrowingStream { continuation in
                            continuation.yield(payload.prefix(20_000))
                            continuation.yield(payload.dropFirst(20_000))
                            continuation.finish()
                        }))
            }
        let response = try await transport.send(HTTPRequest(method: .post, url: server.url("/upload"), body: body), context: RequestContext())
        #expect(response.status.code == 201)
        #expect(server.requests.last?.body == payload)
        #expect(server.requests.map(\.connection) == [0, 1])
    }

    @Test func aSlowlorisTrickleEndsWithinTheTimeout() async throws {
        var configuration = CurlTransport.Configuration()
        configuration.lowSpeedLimit = (bytesPerSecond: 100, duration: .seconds(1))
        let slow = CurlTransport(configuration: configuration)
        server.enqueue(MockWebServer.Response(status: 200, body: Data(count: 5_000)).with(throttle: 1, every: .milliseconds(200)))
        let started = ContinuousClock.now
        do {
            _ = try await slow.send(HTTPRequest(url: server.url("/trickle")), context: RequestContext(deadline: .now + .seconds(120)))
            Issue.record("a 5 bytes/s trickle finished")
        } catch let error as SluiceError {
            #expect(error.code == .timedOut)
        }
        // The low-speed limit (1 s under 100 bytes/s) ended it, long before the 120 s deadline and
        // the 1,000 s the trickle would take.
        #expect(started.duration(to: .now) < TestTiming.scaled(.seconds(20)))
    }
}
