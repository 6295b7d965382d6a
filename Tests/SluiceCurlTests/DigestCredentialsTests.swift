import Foundation
import Sluice
import SluiceCurl
import SluiceTesting
import Testing

@Suite("CurlTransport digest credentials and recorded request heads")
struct DigestCredentialsTests {
    let server: MockWebServer
    init() throws { server = try MockWebServer() }

    static let challenge = MockWebServer.Response(
        status: 401, headers: [("WWW-Authenticate", #"Digest realm="r", nonce="abc123", qop="auth", algorithm=MD5"#)], body: "who?")

    func transport(for url: URL, records: Bool = false) -> CurlTransport {
        var configuration = CurlTransport.Configuration()
        configuration.digestCredentials = .init(user: "ann", password: "s3cret", for: url)
        configuration.recordsRequestHeads = records
        return CurlTransport(configuration: configuration)
    }

    @Test func curlAnswersTheChallengeOfItsOriginWithinOneCall() async throws {
        server.enqueue(Self.challenge, .init(status: 200, body: "in"))
        let url = server.url("/private")
        let response = try await transport(for: url, records: true).send(HTTPRequest(url: url), context: RequestContext())
        #expect(response.text == "in")
        #expect(server.requests.count == 2)
        #expect(server.requests[0].header("Authorization") == nil)
        let answer = try #require(server.requests[1].header("Authorization"))
        #expect(answer.hasPrefix("Digest username=\"ann\"") && answer.contains(#"nonce="abc123""#) && !answer.contains("s3cret"))
        // The head recorded is the last one curl wrote: the answer to the challenge.
        let head = try #require(response.metrics?.requestHead)
        #expect(head.hasPrefix("GET /private HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n"))
        #expect(head.contains("Authorization: Digest username=\"ann\"") && head.hasSuffix("\r\n\r\n"))
    }

    @Test func anotherOriginNeverGetsThem() async throws {
        server.enqueue(Self.challenge)
        // The credentials are for another port of the same host.
        let elsewhere = try #require(URL(string: "http://127.0.0.1:\(server.port == 65535 ? 1 : server.port + 1)/"))
        let response = try await transport(for: elsewhere).send(HTTPRequest(url: server.url("/private")), context: RequestContext())
        #expect(response.status.code == 401)
        #expect(server.requests.count == 1)
        #expect(server.requests[0].header("Authorization") == nil)
        #expect(response.metrics?.requestHead == nil)  // not recorded unless asked
    }

    @Test func originsCompareSchemeHostAndEffectivePort() throws {
        let credentials = CurlTransport.DigestCredentials(user: "u", password: "p", for: try #require(URL(string: "https://API.example.com/x")))
        #expect(credentials.covers(try #require(URL(string: "https://api.example.com:443/y"))))
        #expect(!credentials.covers(try #require(URL(string: "http://api.example.com/y"))))
        #expect(!credentials.covers(try #require(URL(string: "https://api.example.com:8443/y"))))
        #expect(!credentials.covers(try #require(URL(string: "https://evil.example.com/y"))))
        #expect(credentials.description == "DigestCredentials(user: u, password: <redacted>, for: https://api.example.com:443)")
        #expect(!String(reflecting: credentials).contains("\"p\""))
    }
}
