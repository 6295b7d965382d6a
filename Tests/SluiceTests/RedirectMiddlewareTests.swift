import Foundation
import SluiceTesting
import Testing

@testable import Sluice

@Suite("RedirectMiddleware")
struct RedirectMiddlewareTests {
    /// A transport that answers `/start` (and `/hop…`) with `replies` in turn and anything else
    /// with 200 naming the path.
    func transport(_ replies: [MockTransport.Reply]) -> MockTransport {
        let queue = Locked(replies)
        return MockTransport { request, _ in
            queue.withLock { $0.isEmpty ? .status(.ok, body: "at \(request.url.path)") : $0.removeFirst() }
        }
    }

    func redirect(_ code: Int, to location: String) -> MockTransport.Reply {
        .status(HTTPStatus(code: code), headers: ["Location": location])
    }

    func send(_ request: HTTPRequest, _ transport: MockTransport, _ configuration: RedirectMiddleware.Configuration = .default) async throws
        -> HTTPResponse
    {
        try await Pipeline(middlewares: [RedirectMiddleware(configuration: configuration)], transport: transport).send(request)
    }

    func caught(_ body: () async throws -> Void) async -> SluiceError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? SluiceError
        }
    }

    @Test func theResponseIsTheLastHopsWithItsURLAndTheHopCount() async throws {
        let transport = transport([redirect(302, to: "/b"), redirect(301, to: "http://api.test/c?x=1")])
        var response = try await send(HTTPRequest(url: URL(string: "http://api.test/a")!), transport)
        #expect(response.text == "at /c")
        #expect(response.url?.absoluteString == "http://api.test/c?x=1")
        #expect(transport.requests.map(\.request.url.absoluteString) == ["http://api.test/a", "http://api.test/b", "http://api.test/c?x=1"])
        // MockTransport measures nothing; with metrics, the count is filled in.
        #expect(response.metrics == nil)
        let measured = MockTransport { request, _ in
            request.url.path == "/a" ? .status(.found, headers: ["Location": "/b"]) : .status(.ok)
        }
        response = try await Pipeline(
            middlewares: [RedirectMiddleware(), MetricsStamp()], transport: measured
        ).send(HTTPRequest(url: URL(string: "http://api.test/a")!))
        #expect(response.metrics?.redirectCount == 1)
    }

    /// Gives every response metrics, as a real transport does.
    struct MetricsStamp: Middleware {
        func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
            var response = try await next(request, context)
            response.metrics = TransferMetrics(total: .milliseconds(1))
            return response
        }
    }

    @Test func aPolicyOfNoneOrAMissingLocationReturnsThe3xx() async throws {
        var request = HTTPRequest(url: URL(string: "http://api.test/a")!)
        request.redirectPolicy = RedirectPolicy.none
        #expect(try await send(request, transport([redirect(302, to: "/b")])).status == .found)
        let noLocation = transport([.status(.found)])
        #expect(try await send(HTTPRequest(url: URL(string: "http://api.test/a")!), noLocation).status == .found)
        // 300 and 304 are never followed.
        for code in [300, 304] {
            #expect(try await send(HTTPRequest(url: URL(string: "http://api.test/a")!), transport([redirect(code, to: "/b")])).status.code == code)
        }
    }

    @Test func pastTheLimitIsTooManyRedirectsNamingBothEndsRedacted() async throws {
        var request = HTTPRequest(url: URL(string: "http://api.test/a?token=T1")!)
        request.redirectPolicy = .follow(max: 1)
        let error = await caught {
            _ = try await send(request, transport([redirect(302, to: "/b?token=T2"), redirect(302, to: "/c?token=T3")]))
        }
        #expect(error?.code == .tooManyRedirects)
        #expect(error?.message == "more than 1 redirect, the last from http://api.test/b?token=<redacted> to http://api.test/c?token=<redacted>")
    }

    @Test func onlyHTTPAndHTTPSTargetsAreFollowed() async throws {
        let error = await caught {
            _ = try await send(HTTPRequest(url: URL(string: "http://api.test/a")!), transport([redirect(302, to: "file:///etc/passwd")]))
        }
        #expect(error?.code == .invalidURL)
        #expect(error?.message == "the redirect from http://api.test/a goes to a file: URL; only http and https redirects are followed")
    }

    @Test func aLocationThatIsNotAURLIsAnInvalidResponse() async throws {
        let error = await caught {
            _ = try await send(HTTPRequest(url: URL(string: "http://api.test/a")!), transport([redirect(302, to: "http://[::1")]))
        }
        #expect(error?.code == .invalidResponse)
        #expect(error?.message == "the redirect from http://api.test/a has a Location that is not a URL (11 bytes)")
    }

    @Test func spacesAndNonASCIIInALocationArePercentEncoded() async throws {
        let transport = transport([redirect(302, to: "/a b/é")])
        let response = try await send(HTTPRequest(url: URL(string: "http://api.test/start")!), transport)
        #expect(response.url?.absoluteString == "http://api.test/a%20b/%C3%A9")
    }

    @Test func httpsToHTTPCanBeRefused() async throws {
        let configuration = RedirectMiddleware.Configuration(followsHTTPSToHTTP: false)
        let refused = try await send(HTTPRequest(url: URL(string: "https://api.test/a")!), transport([redirect(301, to: "http://api.test/a")]), configuration)
        #expect(refused.status == .movedPermanently)
        let followed = try await send(HTTPRequest(url: URL(string: "https://api.test/a")!), transport([redirect(301, to: "http://api.test/a")]))
        #expect(followed.url?.absoluteString == "http://api.test/a")
    }

    @Test(arguments: [
        ("http://api.test/a", "http://API.test:80/b", true),
        ("https://api.test/a", "https://api.test:443/b", true),
        ("http://api.test/a", "https://api.test/b", false),
        ("http://api.test/a", "http://api.test:8080/b", false),
        ("http://api.test/a", "http://other.test/b", false),
        ("http://api.test/a", "http://sub.api.test/b", false),
    ])
    func theOriginIsSchemeHostAndPort(from: String, to: String, same: Bool) {
        #expect((URL(string: from)!.origin == URL(string: to)!.origin) == same)
    }

    @Test func anotherOriginGetsNoCredentialsForTheRestOfTheCall() async throws {
        let transport = transport([redirect(302, to: "http://other.test/b"), redirect(302, to: "http://api.test/c")])
        var request = HTTPRequest(url: URL(string: "http://api.test/a")!)
        for (name, value) in [
            ("Authorization", "Bearer T"), ("Cookie", "s=1"), ("Proxy-Authorization", "Basic P"), ("X-Api-Key", "K"), ("Host", "api.test"),
            ("X-Tenant-Secret", "S"), ("X-Listed", "L"), ("Accept", "application/json"),
        ] {
            try request.headers.append(name: name, value: value)
        }
        request.credentialFields = ["x-listed"]
        var configuration = RedirectMiddleware.Configuration()
        configuration.crossOriginFields = ["X-Tenant-Secret"]
        let response = try await send(request, transport, configuration)
        #expect(response.text == "at /c")
        let sent = transport.requests.map(\.request)
        #expect(sent[0].headers.count == 8)
        #expect(sent[0].sendsCredentials)
        // Off at the other host, and still off back at the first: once left, the call stays without.
        for hop in sent.dropFirst() {
            #expect(hop.headers.map(\.name) == ["Accept"])
            #expect(!hop.sendsCredentials)
            #expect(hop.credentialFields.isEmpty)
        }
    }

    @Test func theSameOriginKeepsEveryField() async throws {
        let transport = transport([redirect(307, to: "/b")])
        var request = HTTPRequest(url: URL(string: "http://api.test/a")!)
        try request.headers.set(name: "Authorization", value: "Bearer T")
        _ = try await send(request, transport)
        #expect(transport.requests.map { $0.request.headers["Authorization"] } == ["Bearer T", "Bearer T"])
        #expect(transport.requests.allSatisfy { $0.request.sendsCredentials })
    }

    @Test func aOneShotStreamCannotFollowA307() async throws {
        var request = HTTPRequest(method: .put, url: URL(string: "http://api.test/a")!)
        request.body = .stream(
            .oneShot(
                length: 3,
                AsyncThrowingStream {
                    $0.yield(Data("abc".utf8)); $0.finish()
                }))
        let error = await caught { _ = try await send(request, transport([redirect(307, to: "/b")])) }
        #expect(error?.code == .invalidBody)
        #expect(
            error?.message
                == "the 307 redirect from http://api.test/a asks for the PUT to be sent again with its body, but the body is a one-shot stream "
                + "that cannot be read twice; make it with HTTPBody.Stream.replayable, or use a memory or file body"
        )
        // A 303 drops the body, so the same stream is no obstacle there.
        var request303 = request
        request303.body = .stream(.oneShot(length: 3, AsyncThrowingStream { $0.finish() }))
        #expect(try await send(request303, transport([redirect(303, to: "/b")])).text == "at /b")
    }
}
