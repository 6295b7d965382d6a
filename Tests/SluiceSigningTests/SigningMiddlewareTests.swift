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
