import Foundation
import Sluice
import SluiceCurl
import SluiceTesting
import Testing

/// ``RedirectMiddleware`` over real curl: what each hop really put on the wire, as MockWebServer
/// recorded it.
@Suite("Redirects over curl, hop by hop")
struct RedirectMiddlewareOverCurlTests {
    let server: MockWebServer
    let client: Client

    init() throws {
        server = try MockWebServer()
        client = Client(transport: CurlTransport())
    }

    /// `/start` answers `code` to `/end`; everything else answers 200.
    func redirecting(_ code: Int, to location: String = "/end") {
        server.setHandler { request in
            request.target.hasPrefix("/start") ? .init(status: code, headers: [("Location", location)], body: "") : .init(status: 200, body: "landed")
        }
    }

    static let methodRules: [(method: HTTPMethod, code: Int, sent: String, keepsBody: Bool)] = [
        (.post, 301, "GET", false), (.post, 302, "GET", false), (.post, 303, "GET", false),
        (.put, 303, "GET", false), (.patch, 303, "GET", false), (.delete, 303, "GET", false),
        (.put, 301, "PUT", true), (.put, 302, "PUT", true), (.patch, 302, "PATCH", true),
        (.post, 307, "POST", true), (.post, 308, "POST", true), (.put, 307, "PUT", true), (.delete, 308, "DELETE", true),
    ]

    @Test(arguments: methodRules)
    func theMethodAndBodyFollowTheStatus(rule: (method: HTTPMethod, code: Int, sent: String, keepsBody: Bool)) async throws {
        redirecting(rule.code)
        var request = HTTPRequest(method: rule.method, url: server.url("/start"), body: .bytes(Data("payload".utf8)))
        try request.headers.set(name: "Content-Type", value: "text/plain")
        try request.headers.set(name: "Content-Language", value: "en")
        try request.headers.set(name: "X-Kept", value: "yes")
        let response = try await client.send(request)
        #expect(response.text == "landed")
        #expect(response.url == server.url("/end"))
        #expect(response.metrics?.redirectCount == 1)
        let hops = server.requests
        #expect(hops.map(\.target) == ["/start", "/end"])
        #expect(hops.map(\.method) == [rule.method.rawValue, rule.sent])
        let landed = try #require(hops.last)
        #expect(landed.header("X-Kept") == "yes")
        if rule.keepsBody {
            #expect(landed.body == Data("payload".utf8))
            #expect(landed.header("Content-Type") == "text/plain")
            #expect(landed.header("Content-Language") == "en")
        } else {
            #expect(landed.bodyLength == 0)
            #expect(landed.header("Content-Type") == nil)
            #expect(landed.header("Content-Language") == nil)
            #expect(landed.header("Content-Length") == nil)
        }
    }

    @Test func aHEADStaysAHEADAfterA303() async throws {
        redirecting(303)
        _ = try await client.send(HTTPRequest(method: .head, url: server.url("/start")))
        #expect(server.requests.map(\.method) == ["HEAD", "HEAD"])
    }

    @Test func fileAndReplayableStreamBodiesAreSentWholeAgainAfterA307() async throws {
        redirecting(307)
        let payload = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-redirect-\(UUID().uuidString)")
        try payload.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        _ = try await client.send(HTTPRequest(method: .post, url: server.url("/start"), body: .file(file)))
        let chunks = payload.chunks(ofCount: 65_536)
        let stream = HTTPBody.Stream.replayable(length: Int64(payload.count)) {
            AsyncThrowingStream { continuation in
                for chunk in chunks { continuation.yield(chunk) }
                continuation.finish()
            }
        }
        _ = try await client.send(HTTPRequest(method: .put, url: server.url("/start"), body: .stream(stream)))
        #expect(server.requests.map(\.method) == ["POST", "POST", "PUT", "PUT"])
        #expect(server.requests.allSatisfy { $0.body == payload })
    }

    @Test func aOneShotStreamIsRefusedWithTheReason() async throws {
        redirecting(308)
        let stream = HTTPBody.Stream.oneShot(
            length: 4,
            AsyncThrowingStream {
                $0.yield(Data("once".utf8)); $0.finish()
            })
        do {
            _ = try await client.send(HTTPRequest(method: .post, url: server.url("/start?token=T"), body: .stream(stream)))
            Issue.record("a one-shot stream was followed")
        } catch let error as SluiceError {
            #expect(error.code == .invalidBody)
            #expect(
                error.message == "the 308 redirect from \(server.url("/start").absoluteString)?token=<redacted> asks for the POST to be sent again "
                    + "with its body, but the body is a one-shot stream that cannot be read twice; make it with HTTPBody.Stream.replayable, "
                    + "or use a memory or file body")
        }
        #expect(server.requests.count == 1)
    }

    @Test func credentialsStayOnTheirOrigin() async throws {
        let landing = try MockWebServer()
        landing.setHandler { _ in .init(status: 200, body: "landed") }
        // 127.0.0.1 sends the client on to localhost: another host, as far as credentials go.
        redirecting(307, to: "http://localhost:\(landing.port)/landing")
        var request = HTTPRequest(method: .post, url: server.url("/start"), body: .bytes(Data("{}".utf8)))
        let secrets = [
            ("Authorization", "Bearer s3cr3t"), ("Cookie", "session=abc"), ("Proxy-Authorization", "Basic cHJveHk6cHc="),
            ("X-Amz-Security-Token", "FQoGZXIvYXdzE"), ("X-Api-Key", "k3y"),
        ]
        for (name, value) in secrets { try request.headers.set(name: name, value: value) }
        try request.headers.set(name: "X-Harmless", value: "kept")
        let response = try await client.send(request)
        #expect(response.text == "landed")
        #expect(response.url?.absoluteString == "http://localhost:\(landing.port)/landing")
        let origin = try #require(server.requests.first)
        for (name, value) in secrets { #expect(origin.header(name) == value) }
        let sent = try #require(landing.requests.first)
        for (name, _) in secrets { #expect(sent.header(name) == nil, "\(name) reached the other host") }
        #expect(sent.header("X-Harmless") == "kept")
        #expect(sent.body == Data("{}".utf8))
        #expect(sent.header("Host") == "localhost:\(landing.port)")
    }

    @Test func aCallerSetHostIsNotCarriedToAnotherOrigin() async throws {
        let landing = try MockWebServer()
        landing.setHandler { _ in .init(status: 200, body: "landed") }
        redirecting(302, to: "http://localhost:\(landing.port)/landing")
        var request = HTTPRequest(url: server.url("/start"))
        try request.headers.set(name: "Host", value: "tenant.example")
        _ = try await client.send(request)
        #expect(server.requests.first?.header("Host") == "tenant.example")
        #expect(landing.requests.first?.header("Host") == "localhost:\(landing.port)")
    }

    @Test func onTheSameOriginEveryFieldIsKept() async throws {
        redirecting(302, to: "/next")
        var request = HTTPRequest(url: server.url("/start"))
        try request.headers.set(name: "Authorization", value: "Bearer s3cr3t")
        _ = try await client.send(request)
        #expect(server.requests.map { $0.header("Authorization") } == ["Bearer s3cr3t", "Bearer s3cr3t"])
    }

    @Test func aTransportAloneReturnsThe3xxAsItIs() async throws {
        redirecting(302)
        let response = try await CurlTransport().send(HTTPRequest(url: server.url("/start")), context: RequestContext())
        #expect(response.status == .found)
        #expect(response.headers["Location"] == "/end")
        #expect(response.metrics?.redirectCount == 0)
        #expect(server.requests.count == 1)
    }
}

extension Data {
    fileprivate func chunks(ofCount size: Int) -> [Data] {
        stride(from: 0, to: count, by: size).map { subdata(in: $0..<Swift.min($0 + size, count)) }
    }
}
