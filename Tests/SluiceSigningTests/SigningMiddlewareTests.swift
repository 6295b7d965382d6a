import Foundation
import Sluice
import SluiceCurl
import SluiceSigning
import SluiceTesting
import Testing

/// `SigningMiddleware` around redirects, over real curl: each hop is signed for its own target,
/// and nothing signed reaches another origin.
@Suite("SigningMiddleware and redirects")
struct SigningMiddlewareTests {
    let date = Date(timeIntervalSince1970: 1_440_938_160)
    let signer = AWSSigV4Signer(
        accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
        sessionToken: "FQoGZXIvYXdzEXAMPLETOKEN", region: "us-east-1", service: "execute-api")
    let server: MockWebServer
    let landing: MockWebServer

    init() throws {
        server = try MockWebServer()
        landing = try MockWebServer()
        landing.setHandler { _ in .init(status: 200, body: "landed") }
    }

    var signing: SigningMiddleware {
        let date = date
        return SigningMiddleware(signer: signer, configuration: .init(clock: { date }))
    }

    /// The client a `Client.Builder` makes: the redirect follower outside signing.
    var client: Client {
        var builder = Client.Builder(transport: CurlTransport())
        builder.add(signing)
        return builder.build()
    }

    static let signatureFields = ["Authorization", "X-Amz-Date", "X-Amz-Security-Token"]

    @Test func aSameOriginHopIsSignedAgainForItsOwnTarget() async throws {
        server.setHandler { request in
            request.target == "/start" ? .init(status: 302, headers: [("Location", "/next?page=2")], body: "") : .init(status: 200, body: "ok")
        }
        _ = try await client.send(HTTPRequest(url: server.url("/start")))
        let hops = server.requests
        #expect(hops.map(\.target) == ["/start", "/next?page=2"])
        // Each hop carries the signature a fresh signing of that hop's request gives.
        for hop in hops {
            let expected = try signer.sign(HTTPRequest(url: server.url(hop.target)), date: date)
            #expect(hop.header("Authorization") == expected.headers["Authorization"])
            #expect(hop.header("X-Amz-Security-Token") == "FQoGZXIvYXdzEXAMPLETOKEN")
        }
        #expect(hops[0].header("Authorization") != hops[1].header("Authorization"))
    }

    /// Issue 27: what is signed is what curl sends. The server rebuilds the request from the bytes
    /// it received (its `Host` field and request target) and checks the signature against it;
    /// before, `127.1` was signed as host `127.1` while curl sent `Host: 127.0.0.1:PORT`, and the
    /// dot segments curl removes were in the signed path.
    @Test func aURLCurlRewritesIsSignedAsCurlSendsIt() async throws {
        server.setHandler { _ in .init(status: 200, body: "ok") }
        let port = server.port
        let forms = [
            "http://127.1:\(port)/items", "http://2130706433:\(port)/items?page=2", "http://0x7f.0.0.1:\(port)/a/b",
            "http://127.0.0.1:\(port)/static/../account/me", "http://127.0.0.1:0\(port)/x/./y",
        ]
        for form in forms {
            _ = try await client.send(HTTPRequest(url: try #require(URL(string: form))))
        }
        let received = server.requests
        #expect(received.count == forms.count)
        for request in received {
            let host = try #require(request.header("Host"))
            var asReceived = HTTPRequest(url: try #require(URL(string: "http://\(host)\(request.target)")))
            for name in ["X-Amz-Date", "X-Amz-Security-Token"] { try asReceived.headers.set(name: name, value: request.header(name) ?? "") }
            let expected = try signer.sign(asReceived, date: date)
            #expect(request.header("Authorization") == expected.headers["Authorization"], "for \(request.target) at \(host)")
        }
        #expect(received.map(\.target) == ["/items", "/items?page=2", "/a/b", "/account/me", "/x/y"])
    }

    /// An IPv6 literal is signed in brackets, as `Host` carries it; a caller's own `Host` field is
    /// signed as sent.
    @Test func anIPv6HostAndACallersHostFieldAreSignedAsSent() throws {
        let ipv6 = try signer.canonicalRequest(for: HTTPRequest(url: URL(string: "http://[::1]:8080/x")!), date: date)
        #expect(ipv6.contains("\nhost:[::1]:8080\n"))
        var named = HTTPRequest(url: URL(string: "http://127.0.0.1:8080/x")!)
        try named.headers.set(name: "Host", value: "api.example.com")
        #expect(try signer.canonicalRequest(for: named, date: date).contains("\nhost:api.example.com\n"))
    }

    @Test(arguments: [false, true])
    func anotherOriginGetsNothingSigned(signingOutsideTheFollower: Bool) async throws {
        server.setHandler { _ in .init(status: 307, headers: [("Location", "http://localhost:\(landing.port)/landing")], body: "") }
        let pipeline =
            signingOutsideTheFollower
            ? Pipeline(middlewares: [signing, RedirectMiddleware()], transport: CurlTransport()) : client.pipeline
        let response = try await pipeline.send(HTTPRequest(method: .post, url: server.url("/start"), body: .bytes(Data("{}".utf8))))
        #expect(response.text == "landed")
        let origin = try #require(server.requests.first)
        let sent = try #require(landing.requests.first)
        for name in Self.signatureFields {
            #expect(origin.header(name) != nil, "\(name) was not sent to the origin")
            #expect(sent.header(name) == nil, "\(name) reached the other host")
        }
        #expect(sent.body == Data("{}".utf8))
    }
}
